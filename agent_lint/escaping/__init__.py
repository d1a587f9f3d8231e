"""Escaping of untrusted text, one module per sink.

Everything taken from the linted repository (file names, keys, values,
commit subjects, configuration keys and globs) reaches output only through
these functions, chosen by where the text goes:

- :mod:`~agent_lint.escaping.terminal`: text for a terminal or a log (control
  characters shown as visible escapes);
- :mod:`~agent_lint.escaping.workflow`: GitHub Actions workflow commands, and
  any line on stdout or stderr of a job, which the runner scans for commands;
- :mod:`~agent_lint.escaping.markdown`: the Markdown job summary and its
  Mermaid diagrams;
- :mod:`~agent_lint.escaping.sarif`: URIs in SARIF logs.
"""

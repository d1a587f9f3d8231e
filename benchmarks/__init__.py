"""agent-lint's benchmark: generated repositories and the harness that times the tools on them."""

"""The Personal Bot profile: Pi Personal Bot storage (control records, teams, history).

The profile value is :data:`agent_lint.profiles.personal_bot.profile.PROFILE`.
"""

"""The public module ``lifeloop_callback.runner_outcomes``: the runner's outcome table.

Its names are generated into ``_gen_runner_outcomes`` (``npm run generate``, from
sdk/python/templates/runner_outcomes.py.hbs); this module keeps the import path that
users and the README have written since before the SDK's files were renamed (issue 26).
"""

from ._gen_runner_outcomes import *  # noqa: F403

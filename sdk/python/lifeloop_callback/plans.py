"""The public module ``lifeloop_callback.plans``: the rule plans every binding interprets (spec/tables/rules.json).

Its names are generated into ``_gen_plans`` (``npm run generate``, from
sdk/python/templates/plans.py.hbs); this module keeps the import path that
users and the README have written since before the SDK's files were renamed (issue 26).
"""

from ._gen_plans import *  # noqa: F403

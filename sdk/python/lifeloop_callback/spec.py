"""The public module ``lifeloop_callback.spec``: the spec tables as constants (WIRE_VERSION, LIMITS, LIMIT_*, FAILURE_VARIANT_*, ...).

Its names are generated into ``_gen_spec`` (``npm run generate``, from
sdk/python/templates/spec.py.hbs); this module keeps the import path that
users and the README have written since before the SDK's files were renamed (issue 26).
"""

from ._gen_spec import *  # noqa: F403

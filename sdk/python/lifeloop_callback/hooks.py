"""The public module ``lifeloop_callback.hooks``: the harness hook mapping (spec/tables/harness-hook-mapping.json), typed.

Its names are generated into ``_gen_hooks`` (``npm run generate``, from
sdk/python/templates/hooks.py.hbs); this module keeps the import path that
users and the README have written since before the SDK's files were renamed (issue 26).
"""

from ._gen_hooks import *  # noqa: F403

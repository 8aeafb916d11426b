"""The public module ``lifeloop_callback.enums``: the wire enums.

Its names are generated into ``_gen_enums`` (``npm run generate``, from
sdk/python/templates/enums.py.hbs); this module keeps the import path that
users and the README have written since before the SDK's files were renamed (issue 26).
"""

from ._gen_enums import *  # noqa: F403

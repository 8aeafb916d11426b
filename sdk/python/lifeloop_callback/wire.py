"""The public module ``lifeloop_callback.wire``: the wire types (DispatchEnvelope, CallbackResponse, ...).

Its names are generated into ``_gen_wire`` (``npm run generate``, from
sdk/python/templates/wire.py.hbs); this module keeps the import path that
users and the README have written since before the SDK's files were renamed (issue 26).
"""

from ._gen_wire import *  # noqa: F403

"""The public module ``lifeloop_callback.commands``: the client-initiated commands of the host CLI
(``Continuation`` and its results, ``CommandError`` and its subclasses).

The shared machinery is hand-written in ``_host``; the command groups are generated into
``_gen_commands`` (``npm run generate``, from sdk/python/templates/commands.py.hbs).
This module keeps the import path users have written since before the SDK's files were renamed (issue 26).
"""

from ._gen_commands import *  # noqa: F403
from ._host import *  # noqa: F403

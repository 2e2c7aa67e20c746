"""Start ``roundup-server`` as the calling user (run by the Roundup interpreter).

roundup-server refuses to run as root unless told a user to switch to; CI machines and
containers run as root, and the server here only ever binds 127.0.0.1, so this launcher
skips that switch and otherwise runs Roundup's own server unchanged (same arguments).
"""

import sys

from roundup.scripts import roundup_server

roundup_server.setuid = lambda user: None
sys.argv = ["roundup-server", *sys.argv[1:]]
roundup_server.run()

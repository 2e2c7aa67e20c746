"""``ray start`` for a node of a loopback test cluster: ``python ray_node.py start --address=127.0.0.1:PORT ...``.

Ray binds a node's services to 127.0.0.1 only if the node's address is exactly 127.0.0.1, but it
replaces 127.0.0.1 with the machine's network address when starting a node, unless multi-node
clusters are switched off (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``), which in turn makes ``ray start
--address`` refuse to add a node. This runs Ray's own ``ray start`` with the replacement turned off,
so a second node joins the head on 127.0.0.1 and listens only there.
"""

from __future__ import annotations

import sys

import ray._private.services as services
from ray._common.network_utils import is_localhost

_resolve = services.resolve_ip_for_localhost


def _keep_loopback(host: str) -> str:
    return "127.0.0.1" if is_localhost(host) else _resolve(host)


services.resolve_ip_for_localhost = _keep_loopback

if __name__ == "__main__":
    from ray.scripts.scripts import main

    sys.argv = ["ray", *sys.argv[1:]]
    main()

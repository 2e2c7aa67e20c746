"""The rule for an item whose Ray actor died, over every sequence of deaths: it goes back to the queue
while the cause is the node (gone, or the actor unreachable) and it has been lost at most
``NODE_LOSS_RETRIES`` times; then it is recorded as ``NodeLost``. An actor that died on a live node is
a ``WorkerCrashed`` failure at once (the item may be the cause). The cluster's answer to "is this node
alive" is given; the exceptions are Ray's own (the live behaviour is in test_ray_node_loss.py)."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from webgauge.run.ray_executor import NODE_LOSS_RETRIES, RayExecutor, _Slot, import_ray

ray = import_ray()
ITEM = {"id": "i1", "kind": "qa", "payload": {}}


def executor(node_alive: list[bool]) -> RayExecutor:
    ex = object.__new__(RayExecutor)
    ex._node_losses = {}
    killed: list = []
    ex.ray = SimpleNamespace(exceptions=ray.exceptions, kill=killed.append,
                             nodes=lambda: [{"NodeID": "n" * 56, "Alive": node_alive[0]}])
    return ex


def died(unreachable: bool) -> Exception:
    if unreachable:
        return ray.exceptions.ActorUnavailableError("connection lost", None)
    return ray.exceptions.ActorDiedError()


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=6))
def test_an_item_is_requeued_only_for_node_loss_and_only_so_often(deaths):
    alive = [True]
    ex = executor(alive)
    slot = _Slot(actor=object(), name="ray-0@nnnnnnnn", ping=None)
    slot.node = "n" * 56
    losses = 0
    for unreachable, node_alive in deaths:
        alive[0] = node_alive
        kind, data = ex._actor_died(ITEM, slot, died(unreachable), started=0.0)
        node_lost = unreachable or not node_alive
        if node_lost:
            losses += 1
        if not node_lost:
            assert kind == "done" and data["error"]["type"] == "WorkerCrashed"
            return
        if losses <= NODE_LOSS_RETRIES:
            assert (kind, data) == ("requeue", ITEM)
        else:
            assert kind == "done" and data["error"]["type"] == "NodeLost"
            assert slot.node in data["error"]["message"] and "--retry-failed" in data["error"]["message"]
            assert data["item_id"] == "i1" and data["status"] == "error"
            return

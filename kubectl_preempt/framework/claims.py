"""The scheduler's in-flight ResourceClaim allocations (framework/plugins/dynamicresources/
dra_manager.go claimTracker: inFlightAllocations).

DynamicResources' Reserve signals the allocation it found for a claim here; it stays in flight,
holding its devices for every other pod's allocator, until PreBind writes it into the claim's
status (bindClaim) or Unreserve drops it. Pods of one v1.36 pod-group cycle that share a claim
each add a share of the one allocation (SignalClaimPendingAllocation), and it leaves when the last
share does (MaybeRemoveClaimPendingAllocation). One tracker serves every profile of a scheduler,
as the DRA manager does.
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping


def claim_uid(claim: Mapping[str, Any]) -> str:
    """The claim's UID, its namespace/name when it has none (a hand-written snapshot)."""
    md = claim.get("metadata") or {}
    return md.get("uid") or f"{md.get('namespace') or 'default'}/{md.get('name')}"


class ClaimTracker:
    """claimTracker's in-flight part: claim UID -> (the claim with its allocation, its sharers)."""

    def __init__(self) -> None:
        self._in_flight: dict[str, tuple[Mapping[str, Any], int]] = {}

    def get_pending_allocation(self, uid: str) -> Mapping[str, Any] | None:
        """mirrors GetPendingAllocation: the allocation in flight for the claim, None without."""
        got = self._in_flight.get(uid)
        return (got[0].get("status") or {}).get("allocation") if got is not None else None

    def signal_claim_pending_allocation(self, uid: str, allocated_claim: Mapping[str, Any]) -> None:
        """mirrors SignalClaimPendingAllocation: a claim already in flight gets one more sharer."""
        got = self._in_flight.get(uid)
        self._in_flight[uid] = (got[0], got[1] + 1) if got is not None else (allocated_claim, 1)

    def maybe_remove_claim_pending_allocation(self, uid: str, force: bool = False) -> bool:
        """mirrors MaybeRemoveClaimPendingAllocation: one sharer less; the allocation leaves with
        the last (or at once, `force`). True when it left."""
        got = self._in_flight.get(uid)
        if got is None:
            return False
        if force or got[1] == 1:
            del self._in_flight[uid]
            return True
        self._in_flight[uid] = (got[0], got[1] - 1)
        return False

    def allocated_devices(self) -> Iterator[tuple[str, str, str]]:
        """(driver, pool, device) of every allocation in flight (ListAllAllocatedDevices adds them
        to the claims' own)."""
        for claim, _ in self._in_flight.values():
            alloc = (claim.get("status") or {}).get("allocation") or {}
            for r in (alloc.get("devices") or {}).get("results") or ():
                yield r.get("driver") or "", r.get("pool") or "", r.get("device") or ""

    def held(self) -> tuple[tuple[str, int], ...]:
        """What is in flight, as a value a remembered answer compares (the scheduler's world())."""
        return tuple(sorted((uid, n) for uid, (_, n) in self._in_flight.items())) if self._in_flight else ()

    def __len__(self) -> int:
        return len(self._in_flight)

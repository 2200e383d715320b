"""What a load balancer probes: cheap, no query."""

from __future__ import annotations

from fastapi import APIRouter, Request

from lawgraph.store.deps import snapshot

from ..schemas import Health

router = APIRouter(tags=["health"])


@router.get("/api/health", response_model=Health, response_model_exclude_none=True)
async def health(request: Request) -> dict:
    """The id and schema version of the store being served (``warning`` if a newer file
    at the store path was refused as damaged)."""
    snap = snapshot(request)
    return {
        "status": "ok",
        "store_id": snap.store_id,
        "schema_version": snap.schema_version,
        "warning": request.app.state.holder.error,
    }

"""One JSON error shape for every failure: ``{"error": {"code", "message"}}``."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

log = logging.getLogger(__name__)
CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    422: "invalid",
    500: "internal",
    503: "busy",
}


def error_response(status: int, message: str) -> JSONResponse:
    """Build the one error shape."""
    code = CODES.get(status, "error")
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def install(app: FastAPI) -> None:
    """Register the error handlers on ``app``."""

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return error_response(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(400, validation_message(exc))


def validation_message(exc: RequestValidationError) -> str:
    """One line naming each invalid parameter and what is wrong with it, in plain words
    ("limit must be a whole number, not 'abc'")."""
    return "; ".join(_plain(e) for e in exc.errors()) or "invalid request"


_PLACES = {"query": "", "path": "", "header": "header ", "cookie": "cookie ", "body": ""}


def _plain(error: dict) -> str:
    """One validation error of pydantic as a sentence a user can act on."""
    loc = [str(p) for p in error.get("loc", ())]
    where = _PLACES.get(loc[0], "") if loc else ""
    name = where + (".".join(loc[1:]) if len(loc) > 1 else (loc[0] if loc else "request"))
    kind, ctx = error.get("type", ""), error.get("ctx") or {}
    got = error.get("input")
    shown = f", not {str(got)[:40]!r}" if isinstance(got, str | int | float) else ""
    if kind == "missing":
        return f"{name} is required"
    if kind == "int_parsing":
        return f"{name} must be a whole number{shown}"
    if kind in ("float_parsing", "decimal_parsing"):
        return f"{name} must be a number{shown}"
    if kind == "bool_parsing":
        return f"{name} must be true or false{shown}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {
            "greater_than_equal": "at least",
            "greater_than": "more than",
            "less_than_equal": "at most",
            "less_than": "less than",
        }[kind]
        limit = next(iter(ctx.values()), "")
        return f"{name} must be {words} {limit}{shown}"
    if kind == "string_too_short":
        return (
            f"{name} must not be empty"
            if ctx.get("min_length") == 1
            else (f"{name} must have at least {ctx.get('min_length')} characters")
        )
    if kind == "string_too_long":
        return f"{name} is too long (at most {ctx.get('max_length')} characters)"
    if kind in ("literal_error", "enum"):
        return f"{name} must be one of {ctx.get('expected', 'the listed values')}{shown}"
    if kind == "string_pattern_mismatch":
        return f"{name} is not in the expected form{shown}"
    return f"{name}: {error.get('msg', 'invalid')}"

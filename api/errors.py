"""One JSON error shape for every failure: ``{"error": {"code", "message"}}``."""

from __future__ import annotations

import logging
import re

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


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def plain_parameters(request: Request) -> None:
    """A 400 for a control character in a parameter of the address (a NUL byte would
    otherwise reach the page that echoes what was typed); tabs and line breaks pass."""
    for key, value in request.query_params.multi_items():
        if _CONTROL.search(key) or _CONTROL.search(value):
            raise HTTPException(400, f"{key!r} holds a control character: type plain text")


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
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        kind = "empty"
    try:
        return _SAID[kind].format(**ctx, name=name, got=shown)
    except (KeyError, IndexError):  # a kind not listed, or one without its context
        return f"{name}: {error.get('msg', 'invalid')}"


_SAID = {
    "missing": "{name} is required",
    "int_parsing": "{name} must be a whole number{got}",
    "float_parsing": "{name} must be a number{got}",
    "decimal_parsing": "{name} must be a number{got}",
    "bool_parsing": "{name} must be true or false{got}",
    "greater_than_equal": "{name} must be at least {ge}{got}",
    "greater_than": "{name} must be more than {gt}{got}",
    "less_than_equal": "{name} must be at most {le}{got}",
    "less_than": "{name} must be less than {lt}{got}",
    "empty": "{name} must not be empty",
    "string_too_short": "{name} must have at least {min_length} characters",
    "string_too_long": "{name} is too long (at most {max_length} characters)",
    "literal_error": "{name} must be one of {expected}{got}",
    "enum": "{name} must be one of {expected}{got}",
    "string_pattern_mismatch": "{name} is not in the expected form{got}",
}
"""What each kind of validation error says (``ctx`` fills the limits)."""

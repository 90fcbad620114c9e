"""The WSGI application: `gunicorn -c python:sidecar.serving 'sidecar.app:create_app()'`."""
from __future__ import annotations

import logging

from flask import Flask
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException

from . import config as config_module
from .config import Config
from .db import serving_engine
from .errors import DatabaseUnavailable, RtacError, error_body
from .inflight import Gate, InflightLimit
from .services import Services

log = logging.getLogger("rtac")


def create_app(config: Config | None = None, services: Services | None = None) -> Flask:
    if services is None:
        config = config or config_module.load()
        # A server's engine: every wait on the database bounded by the turn's deadline.
        services = Services.build(config, engine=serving_engine(config), background=True)
    app = Flask("sidecar")
    app.config["MAX_CONTENT_LENGTH"] = services.config.max_body_bytes
    app.json.ensure_ascii = False
    app.json.sort_keys = False
    app.extensions["rtac"] = services

    from .api import bp
    app.register_blueprint(bp)

    if services.indexing is not None:
        @app.before_request
        def _indexing_worker():
            # Started in the process that serves, on its first request: never in a
            # preloading parent (threads and the embedding engine do not survive fork);
            # then chunks queued by an import or an upgrade wait for no upsert.
            services.indexing.ensure_running()

    if services.memory is not None:
        @app.before_request
        def _memory_worker():
            # The same, for memory: its worker also moves memories an earlier release
            # embedded (memory.reembed.earlier_recipe) without waiting for a turn.
            services.memory.ensure_running()

    @app.errorhandler(RtacError)
    def _rtac_error(exc: RtacError):
        return exc.to_json(), exc.status, _retry_after(exc)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        code = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}.get(exc.code, "http_error")
        return error_body(code, exc.description or exc.name, retryable=False), exc.code

    @app.errorhandler(OperationalError)
    @app.errorhandler(PoolTimeout)  # every pooled connection busy past the pool's wait
    def _db_down(exc):
        log.error("database unavailable: %s", exc)
        err = DatabaseUnavailable("the database is unavailable; try again shortly")
        return err.to_json(), err.status, _retry_after(err)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error")
        return error_body("internal_error", "internal error", retryable=True), 500

    app.wsgi_app = InflightLimit(app.wsgi_app, Gate(services.config.max_inflight))
    return app


def _retry_after(exc: RtacError) -> dict:
    """A retryable 503 says when to come back."""
    return {"Retry-After": "2"} if exc.status == 503 and exc.retryable else {}

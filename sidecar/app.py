"""The WSGI application: `gunicorn 'sidecar.app:create_app()'`."""
from __future__ import annotations

import logging

from flask import Flask
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException

from . import config as config_module
from .config import Config
from .errors import DatabaseUnavailable, RtacError
from .services import Services

log = logging.getLogger("rtac")


def create_app(config: Config | None = None, services: Services | None = None) -> Flask:
    if services is None:
        services = Services.build(config or config_module.load(), background=True)
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

    @app.errorhandler(RtacError)
    def _rtac_error(exc: RtacError):
        return exc.to_json(), exc.status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        code = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}.get(exc.code, "http_error")
        return {"error": {"code": code, "message": exc.description or exc.name, "retryable": False}}, exc.code

    @app.errorhandler(OperationalError)
    def _db_down(exc):
        log.error("database unavailable: %s", exc)
        err = DatabaseUnavailable("the database is unavailable; try again shortly")
        return err.to_json(), err.status

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error")
        return {"error": {"code": "internal_error", "message": "internal error", "retryable": True}}, 500

    return app

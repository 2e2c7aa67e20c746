"""A fake remote model over real HTTP on 127.0.0.1, for tests of any suite.

:class:`FakeModelServer` speaks three real wire protocols on one random loopback port:
OpenAI chat completions (``POST <prefix>/chat/completions``), the Anthropic Messages API
(``POST /v1/messages``) and Gemini ``generateContent``
(``POST /<version>/models/<model>:generateContent``). The answer text comes from a
callable ``respond(request_json) -> str | Reply`` that sees the decoded request body; the
helpers :func:`request_text` and :func:`request_images` read the prompt text and the image
bytes out of a body of any of the three protocols.

It can misbehave on cue, one queued :class:`Fault` per request in arrival order: an HTTP
status (429 with ``Retry-After``, 500, ...), a malformed 200 body, a stall longer than the
client's timeout, or a dropped connection. It records every request, the number served and
the largest number of requests in flight at once. ``max_tokens`` is honored the way a real
server does: answers longer than that many (whitespace) tokens are cut with a ``length``
finish reason.

    with FakeModelServer(lambda req: "B") as srv:
        model = get_model("openai:fake", base_url=srv.openai_base_url)
"""

from __future__ import annotations

import base64
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeModelServer", "Fault", "Reply", "RecordedRequest", "request_text", "request_images"]


@dataclass(frozen=True)
class Reply:
    """A full answer from ``respond``: text plus optional finish reason and token counts."""

    text: str
    finish_reason: str = "stop"
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class Fault:
    """One misbehaviour, used for the next request. Build with the class methods."""

    kind: str
    status: int = 500
    retry_after: str | None = None
    seconds: float = 0.0
    body: str | None = None

    @classmethod
    def http(cls, status: int, retry_after: None | float | str = None, body: str | None = None) -> Fault:
        """Answer with this HTTP status (and ``Retry-After`` header if given)."""
        return cls("status", status=status, body=body,
                   retry_after=None if retry_after is None else str(retry_after))

    @classmethod
    def malformed(cls) -> Fault:
        """Answer 200 with a body that is not a valid response of the protocol."""
        return cls("malformed")

    @classmethod
    def stall(cls, seconds: float) -> Fault:
        """Wait ``seconds`` before answering normally (to trip a client timeout)."""
        return cls("stall", seconds=seconds)

    @classmethod
    def drop(cls) -> Fault:
        """Close the connection without any answer."""
        return cls("drop")


@dataclass
class RecordedRequest:
    """One request as the server saw it."""

    path: str
    protocol: str
    headers: dict[str, str]
    body: Any
    fault: Fault | None = None
    received_at: float = field(default_factory=time.monotonic)


Respond = Callable[[dict], str | Reply]

_GEMINI_PATH = re.compile(r"^/[^/]+/models/([^/:]+):generateContent$")


def _protocol(path: str) -> str | None:
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/v1/messages"):
        return "anthropic"
    if _GEMINI_PATH.match(path):
        return "gemini"
    return None


def _content_text(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return []


def request_text(body: dict) -> str:
    """Text of the last user turn of an OpenAI, Anthropic or Gemini request body."""
    if "contents" in body:  # gemini
        turns = [c for c in body["contents"] if c.get("role", "user") == "user"]
        return "\n".join(_content_text(turns[-1].get("parts", []))) if turns else ""
    turns = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return "\n".join(_content_text(turns[-1].get("content"))) if turns else ""


def request_images(body: dict) -> list[tuple[str, bytes]]:
    """Every inline image in a request body, as (mime, bytes), in order."""
    out: list[tuple[str, bytes]] = []
    if "contents" in body:
        for c in body["contents"]:
            for p in c.get("parts", []):
                blob = p.get("inlineData") or p.get("inline_data")
                if blob:
                    out.append((blob.get("mimeType") or blob.get("mime_type"), base64.b64decode(blob["data"])))
        return out
    for m in body.get("messages", []):
        content = m.get("content")
        if not isinstance(content, list):
            continue
        for p in content:
            if p.get("type") == "image_url":
                url = p["image_url"]["url"]
                head, _, data = url.partition(",")
                out.append((head[len("data:"):].split(";")[0], base64.b64decode(data)))
            elif p.get("type") == "image" and p.get("source", {}).get("type") == "base64":
                out.append((p["source"]["media_type"], base64.b64decode(p["source"]["data"])))
    return out


def _count_input_tokens(body: dict) -> int:
    words = 0
    for turn in body.get("messages", body.get("contents", [])):
        for t in _content_text(turn.get("content", turn.get("parts"))):
            words += len(t.split())
    for s in _content_text(body.get("system")) + _content_text(
            (body.get("systemInstruction") or body.get("system_instruction") or {}).get("parts")):
        words += len(s.split())
    return words + 100 * len(request_images(body))


def _max_tokens(body: dict) -> int | None:
    gen = body.get("generationConfig") or body.get("generation_config") or {}
    for v in (body.get("max_tokens"), body.get("max_completion_tokens"), gen.get("maxOutputTokens"),
              gen.get("max_output_tokens")):
        if v is not None:
            return int(v)
    return None


class FakeModelServer:
    """A threaded HTTP server on 127.0.0.1 that answers like a remote model (see module doc).

    ``respond`` gets each decoded request body and returns the answer text (or a
    :class:`Reply`); the default answers ``"OK"``. ``delay`` seconds are spent on every
    request while it counts as in flight. ``api_key``, when set, must be presented the way
    each protocol does it, or the server answers 401.
    """

    def __init__(self, respond: Respond | None = None, *, delay: float = 0.0,
                 api_key: str | None = None) -> None:
        self.respond: Respond = respond or (lambda body: "OK")
        self.delay = delay
        self.api_key = api_key
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: list[Fault] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._conns: set = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> FakeModelServer:
        """Bind a random loopback port and serve in a background thread."""
        handler = type("_Handler", (_Handler,), {"fake": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-model-server",
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake stalled handlers and close every connection."""
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            with self._lock:
                conns = list(self._conns)
            for sock in conns:
                try:
                    sock.shutdown(2)
                except OSError:
                    pass
            if self._thread is not None:
                self._thread.join(timeout=5)
            self._httpd = None

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        if self._httpd is None:
            raise RuntimeError("FakeModelServer is not running: use it as a context manager or call start()")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        """Base URL for the ``openai`` provider (``.../v1``)."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """Base URL for the ``anthropic`` provider / SDK."""
        return self.url

    @property
    def gemini_base_url(self) -> str:
        """Base URL for the ``gemini`` provider / SDK."""
        return self.url

    # -- control -----------------------------------------------------------------------------
    def add_faults(self, *faults: Fault) -> None:
        """Queue misbehaviours; each is used by one request, in arrival order."""
        with self._lock:
            self._faults.extend(faults)

    @property
    def pending_faults(self) -> int:
        """Faults not yet used."""
        with self._lock:
            return len(self._faults)

    @property
    def request_count(self) -> int:
        """Requests received so far (faulted ones included)."""
        with self._lock:
            return len(self.requests)

    # -- handling (called from handler threads) -----------------------------------------------
    def _begin(self, rec: RecordedRequest) -> Fault | None:
        with self._lock:
            self.requests.append(rec)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            rec.fault = self._faults.pop(0) if self._faults else None
            return rec.fault

    def _end(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _authorized(self, protocol: str, headers: dict[str, str]) -> bool:
        if self.api_key is None:
            return True
        bearer = headers.get("authorization", "").removeprefix("Bearer ")
        presented = {"openai": [bearer],
                     "anthropic": [headers.get("x-api-key", ""), bearer],  # SDKs send one or the other
                     "gemini": [headers.get("x-goog-api-key", "")]}[protocol]
        return self.api_key in presented

    def _answer(self, protocol: str, body: dict, path: str) -> dict:
        reply = self.respond(body)
        if isinstance(reply, str):
            reply = Reply(reply)
        words = reply.text.split()
        text, finish = reply.text, reply.finish_reason
        limit = _max_tokens(body)
        if limit is not None and len(words) > limit:
            text, finish = " ".join(words[:limit]), "length"
        tin = reply.input_tokens if reply.input_tokens is not None else _count_input_tokens(body)
        tout = reply.output_tokens if reply.output_tokens is not None else len(text.split())
        n = len(self.requests)
        if protocol == "openai":
            return {"id": f"chatcmpl-fake-{n}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": finish}],
                    "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout}}
        if protocol == "anthropic":
            stop = {"stop": "end_turn", "length": "max_tokens"}.get(finish, finish)
            return {"id": f"msg_fake_{n}", "type": "message", "role": "assistant", "model": body.get("model", ""),
                    "content": [{"type": "text", "text": text}], "stop_reason": stop, "stop_sequence": None,
                    "usage": {"input_tokens": tin, "output_tokens": tout}}
        m = _GEMINI_PATH.match(path)
        if m is None:
            raise ValueError(f"not a Gemini generateContent path: {path}")
        model = m.group(1)
        reason = {"stop": "STOP", "length": "MAX_TOKENS", "content_filter": "SAFETY"}.get(finish, "OTHER")
        return {"candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                                "finishReason": reason, "index": 0}],
                "usageMetadata": {"promptTokenCount": tin, "candidatesTokenCount": tout,
                                  "totalTokenCount": tin + tout},
                "modelVersion": model}


def _error_body(protocol: str | None, status: int, message: str) -> dict:
    if protocol == "anthropic":
        etype = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
                 429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": etype, "message": message}}
    if protocol == "gemini":
        return {"error": {"code": status, "message": message, "status": "FAKE_ERROR"}}
    return {"error": {"message": message, "type": "fake_error", "code": status}}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops bursts of connects (1 s SYN retry stalls)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # idle keep-alive connections close after this
    fake: FakeModelServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; without NODELAY, Nagle + delayed ACK add ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.fake._lock:
            self.fake._conns.add(self.connection)

    def finish(self) -> None:
        with self.fake._lock:
            self.fake._conns.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, payload: dict | str, headers: dict | None = None) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        raw = data.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(raw)
        except OSError:  # the client went away (e.g. it timed out)
            self.close_connection = True

    def do_GET(self) -> None:
        if self.path in ("/health", "/v1/models"):
            self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        else:
            self._send(404, _error_body(None, 404, f"no route {self.path}"))

    def do_POST(self) -> None:
        fake = self.fake
        path = self.path.split("?", 1)[0]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        protocol = _protocol(path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        rec = RecordedRequest(path=path, protocol=protocol or "unknown", headers=headers, body=body)
        fault = fake._begin(rec)
        try:
            self._serve(fake, rec, fault)
        finally:
            fake._end()

    def _serve(self, fake: FakeModelServer, rec: RecordedRequest, fault: Fault | None) -> None:
        protocol, body = (None if rec.protocol == "unknown" else rec.protocol), rec.body
        if fake.delay:
            fake._stop.wait(fake.delay)
        if protocol is None:
            return self._send(404, _error_body(None, 404, f"no route {rec.path}"))
        if body is None:
            return self._send(400, _error_body(protocol, 400, "request body is not JSON"))
        if not fake._authorized(protocol, rec.headers):
            return self._send(401, _error_body(protocol, 401, "invalid api key"))
        if fault is not None:
            if fault.kind == "status":
                hdr = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
                return self._send(fault.status, fault.body or _error_body(protocol, fault.status, "fake fault"), hdr)
            if fault.kind == "malformed":
                return self._send(200, '{"choices": [ {"oops": ')
            if fault.kind == "drop":
                self.close_connection = True
                return
            if fault.kind == "stall":
                if fake._stop.wait(fault.seconds):
                    self.close_connection = True
                    return
        try:
            answer = fake._answer(protocol, body, rec.path)
        except Exception as e:  # a broken respond() must be loud, not a hang
            return self._send(500, _error_body(protocol, 500, f"respond() raised {type(e).__name__}: {e}"))
        self._send(200, answer)

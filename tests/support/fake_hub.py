#!/usr/bin/env python3
"""A stand-in for the Hugging Face Hub on loopback, for the download tests.

Serves one model folder under several repository ids, each with its own behaviour:
  test-org/model       a normal model
  test-org/interrupt   the first GET of model.safetensors is cut after 1 MiB
  test-org/corrupt     model.safetensors is served with a byte changed (its announced hash stays)
  test-org/stall       model.safetensors sends 1 MiB, then nothing (the connection stays open)
  test-org/private     needs "Authorization: Bearer secret"
  test-org/pickle      has pytorch_model.bin instead of model.safetensors
Anything else is 404. It answers the Hub's URL scheme and headers:
  GET  /api/models/<id>/revision/<rev>     {"sha": ..., "siblings": [{"rfilename": ...}]}
  HEAD /<id>/resolve/<rev>/<file>          X-Repo-Commit, ETag (git SHA-1) or, for the large file,
                                           a 302 with X-Linked-Etag (SHA-256) and X-Linked-Size
  GET  /<id>/resolve/<rev>/<file>          the bytes, honouring Range
Prints "port N" on its first line; logs each request as a JSON line on stderr.

  fake_hub.py MODEL_DIR
"""
import hashlib
import http.server
import json
import os
import socketserver
import sys
import threading
import time

COMMIT = "0123456789abcdef0123456789abcdef01234567"
MODEL_DIR = sys.argv[1]
FILES = ["config.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json", "model.safetensors"]
LARGE = "model.safetensors"
REPOS = {"model", "interrupt", "corrupt", "stall", "private", "pickle"}
CUT = 1 << 20
state = {"interrupted": False}
lock = threading.Lock()


def content(name):
    with open(os.path.join(MODEL_DIR, name), "rb") as f:
        return f.read()


DATA = {name: content(name) for name in FILES if os.path.exists(os.path.join(MODEL_DIR, name))}
SHA256 = {name: hashlib.sha256(data).hexdigest() for name, data in DATA.items()}
GIT_SHA1 = {name: hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() for name, data in DATA.items()}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def log(self, **extra):
        print(json.dumps({"method": self.command, "path": self.path, "range": self.headers.get("Range"), **extra}), file=sys.stderr, flush=True)

    def repo(self, parts):
        """(behaviour, rest) for /api/models/test-org/X/... or /test-org/X/..., or None."""
        if len(parts) < 2 or parts[0] != "test-org" or parts[1] not in REPOS:
            return None, None
        return parts[1], parts[2:]

    def refuse(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def authorised(self, behaviour):
        return behaviour != "private" or self.headers.get("Authorization") == "Bearer secret"

    def files_of(self, behaviour):
        names = [n for n in DATA]
        if behaviour == "pickle":
            names = [n if n != LARGE else "pytorch_model.bin" for n in names]
        return names

    def api(self, behaviour):
        body = json.dumps({"id": "test-org/" + behaviour, "sha": COMMIT, "siblings": [{"rfilename": n} for n in self.files_of(behaviour)]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def head_file(self, name):
        if name == LARGE:
            self.send_response(302)
            self.send_header("Location", self.path.replace("/resolve/", "/lfs/"))
            self.send_header("X-Linked-Etag", '"%s"' % SHA256[name])
            self.send_header("X-Linked-Size", str(len(DATA[name])))
        else:
            self.send_response(200)
            self.send_header("ETag", '"%s"' % GIT_SHA1[name])
            self.send_header("Content-Length", str(len(DATA[name])))
        self.send_header("X-Repo-Commit", COMMIT)
        self.end_headers()

    def get_file(self, behaviour, name):
        data = DATA[name]
        if behaviour == "corrupt" and name == LARGE:
            data = data[:100] + bytes([data[100] ^ 0xFF]) + data[101:]
        start = 0
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes="):
            start = int(rng[6:].split("-")[0])
        if start >= len(data) and len(data) > 0:
            return self.refuse(416)
        body = data[start:]
        self.send_response(206 if start else 200)
        self.send_header("Content-Length", str(len(body)))
        if start:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
        self.send_header("ETag", '"%s"' % (SHA256[name] if name == LARGE else GIT_SHA1[name]))
        self.end_headers()
        if name == LARGE and behaviour == "stall":
            self.wfile.write(body[:CUT])
            self.wfile.flush()
            time.sleep(3600)
        if name == LARGE and behaviour == "interrupt":
            with lock:
                first = not state["interrupted"]
                state["interrupted"] = True
            if first:
                self.wfile.write(body[:CUT])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
        self.wfile.write(body)

    def route(self):
        parts = self.path.split("?")[0].strip("/").split("/")
        api = parts[:2] == ["api", "models"]
        behaviour, rest = self.repo(parts[2:] if api else parts)
        self.log(repo=behaviour)
        if behaviour is None:
            return self.refuse(404)
        if not self.authorised(behaviour):
            return self.refuse(401)
        if api:
            return self.api(behaviour) if len(rest) == 2 and rest[0] == "revision" else self.refuse(404)
        if len(rest) < 3 or rest[0] not in ("resolve", "lfs"):
            return self.refuse(404)
        name = "/".join(rest[2:])
        if name not in self.files_of(behaviour) or name not in DATA:
            return self.refuse(404)
        if self.command == "HEAD":
            return self.head_file(name)
        return self.get_file(behaviour, name)

    def do_GET(self):
        self.route()

    def do_HEAD(self):
        self.route()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
print("port", server.server_address[1], flush=True)
server.serve_forever()

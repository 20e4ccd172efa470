#!/usr/bin/env python3
"""A stand-in for the Hugging Face Hub on loopback, for the download tests.

Serves one model folder under several repository ids, each with its own behaviour:
  test-org/model       a normal model
  test-org/interrupt   the first GET of model.safetensors is cut after 1 MiB
  test-org/corrupt     model.safetensors is served with a byte changed (its announced hash stays)
  test-org/stall       model.safetensors sends 1 MiB, then nothing (the connection stays open)
  test-org/private     needs "Authorization: Bearer secret"
  test-org/pickle      has pytorch_model.bin instead of model.safetensors
  test-org/roberta     the second folder (a RoBERTa checkpoint: tokenizer.json, no vocab.txt)
  test-org/gguf        a GGUF repository: the GGUF file as tiny-Q4_K_M.gguf and tiny-Q8_0.gguf,
                       beside a vision projector and one part of a file split in two
  test-org/gguf-choice a GGUF repository of two files, neither a Q4_K_M
Anything else is 404. It answers the Hub's URL scheme and headers:
  GET  /api/models/<id>/revision/<rev>     {"sha": ..., "siblings": [{"rfilename": ...}]}
  HEAD /<id>/resolve/<rev>/<file>          X-Repo-Commit, ETag (git SHA-1) or, for the large file,
                                           a 302 with X-Linked-Etag (SHA-256) and X-Linked-Size
  GET  /<id>/resolve/<rev>/<file>          the bytes, honouring Range
Prints "port N" on its first line; logs each request as a JSON line on stderr.

  fake_hub.py MODEL_DIR ROBERTA_DIR GGUF_FILE
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
ROBERTA_DIR = sys.argv[2]
ROBERTA_FILES = ["config.json", "tokenizer.json", "model.safetensors"]
GGUF_FILE = sys.argv[3]
GGUF_REPOS = {"gguf": ["tiny-Q4_K_M.gguf", "tiny-Q8_0.gguf", "mmproj-tiny-f16.gguf", "tiny-F16-00001-of-00002.gguf"],
              "gguf-choice": ["tiny-Q8_0.gguf", "tiny-F16.gguf"]}
REPOS = {"model", "interrupt", "corrupt", "stall", "private", "pickle", "roberta"} | set(GGUF_REPOS)
CUT = 1 << 20
state = {"interrupted": False}
lock = threading.Lock()


def contents(folder, names):
    out = {}
    for name in names:
        if os.path.exists(os.path.join(folder, name)):
            with open(os.path.join(folder, name), "rb") as f:
                out[name] = f.read()
    return out


SETS = {"minilm": contents(MODEL_DIR, FILES), "roberta": contents(ROBERTA_DIR, ROBERTA_FILES)}
with open(GGUF_FILE, "rb") as f:
    gguf_bytes = f.read()
for repo, names in GGUF_REPOS.items():
    SETS[repo] = {name: gguf_bytes for name in names}
SHA256 = {k: {n: hashlib.sha256(d).hexdigest() for n, d in s.items()} for k, s in SETS.items()}
GIT_SHA1 = {k: {n: hashlib.sha1(b"blob %d\0" % len(d) + d).hexdigest() for n, d in s.items()} for k, s in SETS.items()}


def files_set(behaviour):
    return behaviour if behaviour in ("roberta", *GGUF_REPOS) else "minilm"


def large(name):
    """Served as the Hub serves files kept in LFS: a redirect, the SHA-256 as the linked ETag."""
    return name == LARGE or name.endswith(".gguf")


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
        names = [n for n in SETS[files_set(behaviour)]]
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

    def head_file(self, behaviour, name):
        data, sha256, sha1 = SETS[files_set(behaviour)][name], SHA256[files_set(behaviour)][name], GIT_SHA1[files_set(behaviour)][name]
        if large(name):
            self.send_response(302)
            self.send_header("Location", self.path.replace("/resolve/", "/lfs/"))
            self.send_header("X-Linked-Etag", '"%s"' % sha256)
            self.send_header("X-Linked-Size", str(len(data)))
        else:
            self.send_response(200)
            self.send_header("ETag", '"%s"' % sha1)
            self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Repo-Commit", COMMIT)
        self.end_headers()

    def get_file(self, behaviour, name):
        data = SETS[files_set(behaviour)][name]
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
        self.send_header("ETag", '"%s"' % (SHA256[files_set(behaviour)][name] if large(name) else GIT_SHA1[files_set(behaviour)][name]))
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
        if name not in self.files_of(behaviour) or name not in SETS[files_set(behaviour)]:
            return self.refuse(404)
        if self.command == "HEAD":
            return self.head_file(behaviour, name)
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

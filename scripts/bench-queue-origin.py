#!/usr/bin/env python3
"""A test origin for scripts/bench-queue.sh: every GET answers the same image after DELAY_MS."""
import http.server
import os
import sys
import time

IMAGE = open(sys.argv[2], "rb").read()
DELAY = float(os.environ.get("DELAY_MS", "0")) / 1000


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if DELAY:
            time.sleep(DELAY)
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(IMAGE)))
        self.end_headers()
        self.wfile.write(IMAGE)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()

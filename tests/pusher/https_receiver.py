"""An HTTPS receiver for the pusher's certificate tests: answers 200 to every POST and appends
each body, one a line, to LOG. Python's own TLS (ssl), apart from the pusher's libcurl and
OpenSSL configuration, so that a passing test shows verification against a real server.

usage: https_receiver.py CERT KEY PORT_FILE LOG   (the port it bound is written to PORT_FILE)
"""
import http.server
import os
import ssl
import sys

cert, key, port_file, log = sys.argv[1:5]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with open(log, "ab") as out:
            out.write(body + b"\n")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
with open(port_file + ".tmp", "w") as out:
    out.write(str(server.server_address[1]))
# The rename makes the port file appear whole.
os.rename(port_file + ".tmp", port_file)
server.serve_forever()

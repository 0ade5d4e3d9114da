#!/usr/bin/env python3
"""delayq over HTTP with Python's standard library only: send a message due in 2 s, wait for it
with a long-poll, ack it. usage: quickstart.py [BASE_URL]   (default http://127.0.0.1:7380;
a token, when the service has an auth file, from $DELAYQ_TOKEN)"""
import json, os, sys, urllib.request

BASE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:7380"
TOKEN = os.environ.get("DELAYQ_TOKEN")

def post(path, body):
    headers = {"Content-Type": "application/json"}
    if TOKEN:
        headers["Authorization"] = "Bearer " + TOKEN
    request = urllib.request.Request(BASE + path, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=70) as response:  # errors raise HTTPError
        return json.load(response)

sent = post("/v1/queues/orders/messages", {"payload": "close order 42", "delay": "2s"})
print("sent", sent["id"], "due at", sent["due_ms"])
deliveries = []
while not deliveries:  # a long-poll answers as soon as something is due, or empty after "wait"
    deliveries = post("/v1/queues/orders/leases", {"max": 10, "wait": "30s"})["deliveries"]
for d in deliveries:
    print("got", d["id"], repr(d["payload"]), "attempt", d["attempt"])
acked = post("/v1/queues/orders/ack", {"leases": [d["lease"] for d in deliveries]})
print("acked", [r["status"] for r in acked["results"]])

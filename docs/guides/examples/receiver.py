# A webhook receiver for Kasi in Python, with the standard library alone: it checks each
# delivery's Service-Signature by hand (HMAC-SHA256 over "<t>.<raw body>"), handles each event
# once, and answers 2xx at once.
# Run: KASI_WEBHOOK_SECRET=whsec_... python3 receiver.py 127.0.0.1:4242
import hashlib
import hmac
import json
import os
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = os.environ["KASI_WEBHOOK_SECRET"].encode()
TOLERANCE_SECONDS = 300

# Deliveries can arrive more than once: remember the events handled (use your database in a real app).
handled = set()


class Refused(Exception):
    pass


def verify(raw_body: bytes, header: str | None) -> dict:
    """The event, if the header signs this exact body under SECRET within the tolerance."""
    if not header:
        raise Refused("malformed_header")
    timestamp, signatures = None, []
    for part in header.split(","):
        key, _, value = part.partition("=")
        if key == "t" and re.fullmatch(r"\d{1,12}", value):
            timestamp = int(value)
        elif key == "v1" and re.fullmatch(r"[0-9a-f]{64}", value):
            signatures.append(value)  # one v1 per signing secret while a secret is rotated
    if timestamp is None or not signatures:
        raise Refused("malformed_header")
    expected = hmac.new(SECRET, str(timestamp).encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, signature) for signature in signatures):
        raise Refused("no_matching_signature")
    if abs(time.time() - timestamp) > TOLERANCE_SECONDS:
        raise Refused("timestamp_outside_tolerance")
    return json.loads(raw_body)


def handle(event: dict) -> None:
    # Your work goes here: fulfil the order on payment.succeeded, and so on.
    about = event["data"].get("id")
    print(f"{event['type']} {event['id']}" + (f" ({about})" if about else ""), flush=True)


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path != "/webhooks":
            return self.answer(404, "not found")
        # The signature covers the exact bytes sent: verify the raw body, before any JSON parsing.
        raw_body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            event = verify(raw_body, self.headers.get("Service-Signature"))
        except Refused as refused:
            print(f"refused: {refused}", flush=True)
            return self.answer(400, str(refused))
        if event["id"] in handled:
            print(f"{event['type']} {event['id']} again: already handled", flush=True)
        else:
            handled.add(event["id"])
            handle(event)
        self.answer(200, "ok")

    def answer(self, status: int, text: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(text.encode())

    def log_message(self, *args):
        pass  # one line per event is enough here


host, port = (sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:4242").split(":")
HTTPServer((host, int(port)), Receiver).serve_forever()

"""An ActionBus worker in Python: majortomo's MDP/0.2 Worker, unmodified, serving one action.

    pip install majortomo==0.2.0 six
    python Examples/python/majortomo_worker.py tcp://127.0.0.1:5556 Legacy.upper
    actionbus perform Legacy.upper --input '{"text":"hi"}'      # {"text":"HI"}

The service name is the action's name (Feature.action); the request body is the JSON input and
the reply body the JSON output. A reply that is not JSON is carried as text. The coordinator
treats it as any worker: it routes requests to it (one at a time), counts its heartbeats,
requeues its request if it dies, and its outcomes reach the stream and the action stacks.
"""
import json
import sys
import time

from majortomo import Worker


def handle(body):
    """Legacy.upper: {"text": ...} -> {"text": TEXT}; {"sleep": seconds} first waits that long."""
    request = json.loads(body or b"{}")
    time.sleep(float(request.get("sleep", 0)))
    return json.dumps({"text": str(request.get("text", "")).upper()}).encode()


def main():
    endpoint = sys.argv[1] if len(sys.argv) > 1 else "tcp://127.0.0.1:5556"
    service = sys.argv[2] if len(sys.argv) > 2 else "Legacy.upper"
    worker = Worker(endpoint, service.encode(), heartbeat_interval=1.0)
    worker.connect()
    print(f"serving {service} at {endpoint}", flush=True)
    try:
        while True:
            client, frames = worker.wait_for_request()
            worker.send_reply_final(client, [handle(b"".join(frames))])
    except KeyboardInterrupt:
        pass
    finally:
        worker.close()


if __name__ == "__main__":
    main()

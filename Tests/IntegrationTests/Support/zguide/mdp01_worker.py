"""An MDP/0.1 echo worker built on the zguide's unmodified mdwrkapi.

Ours, not the zguide's. Usage:
    python mdp01_worker.py ENDPOINT [COUNT] [--service Echo.say] [--disconnect] [--hold]

Registers (READY) for the service, answers COUNT requests (default 1; 0: until
killed) with the request's own body frames, then exits 0. Each request's body
frames are printed as one line of UTF-8 text, frames joined by a tab. With
--disconnect it sends DISCONNECT before exiting (the zguide worker itself never
sends DISCONNECT). With --hold it takes one request, prints it and never answers
(a worker that dies holding a request, once the test kills it).
"""
import argparse
import os
import sys
import time

import zmq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import MDP  # noqa: E402  (zguide, unmodified)
from mdwrkapi import MajorDomoWorker  # noqa: E402  (zguide, unmodified)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("endpoint")
    parser.add_argument("count", nargs="?", type=int, default=1)
    parser.add_argument("--service", default="Echo.say")
    parser.add_argument("--disconnect", action="store_true")
    parser.add_argument("--hold", action="store_true")
    args = parser.parse_args()

    worker = MajorDomoWorker(args.endpoint, args.service.encode())
    reply = None
    served = 0
    while args.count == 0 or served < args.count:
        request = worker.recv(reply)  # sends the previous reply, waits for the next REQUEST
        if request is None:  # interrupted (Ctrl-C)
            return 1
        print("\t".join(f.decode("utf-8", "backslashreplace") for f in request), flush=True)
        if args.hold:
            while True:
                time.sleep(3600)
        reply = request  # echo
        served += 1
    if reply is not None:
        # recv(reply) would send this and then block for another request, so send
        # the last REPLY the way recv() does: [client address, empty] + body.
        worker.send_to_broker(MDP.W_REPLY, msg=[worker.reply_to, b""] + reply)
    if args.disconnect:
        worker.send_to_broker(MDP.W_DISCONNECT)
    # mdwrkapi sets linger 0 (and destroy() forces it); give the last frames time to leave.
    worker.worker.setsockopt(zmq.LINGER, 2000)
    worker.worker.close()
    worker.ctx.term()
    return 0


if __name__ == "__main__":
    sys.exit(main())

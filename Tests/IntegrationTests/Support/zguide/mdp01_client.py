"""Send one MDP/0.1 request with the zguide's unmodified mdcliapi and print the reply.

Ours, not the zguide's. Usage:
    python mdp01_client.py ENDPOINT [--service Echo.say] [--body '{"text":"v01"}']
                                    [--timeout 2500] [--retries 3]
                                    [--curve-secret-key NAME.key --server-key coordinator.pub]

Prints each reply body frame on its own line (UTF-8) and exits 0; exits 2 if
mdcliapi gave up (no reply after `retries` attempts of `timeout` ms each).
Note mdcliapi resends the request on a fresh REQ socket after each timeout, so a
slow broker can see the same request up to `retries` times. With CURVE keys (actionbus keygen's
files), every socket mdcliapi makes is a CURVE client: mdcliapi stays unmodified, the keys are
set as its context makes each socket.
"""
import argparse
import os
import sys

import zmq  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mdcliapi import MajorDomoClient  # noqa: E402  (zguide, unmodified)


def use_curve(secret_key_file, server_key_file):
    """Makes every socket a zmq.Context makes from now on a CURVE client with these keys."""
    def read(path):
        with open(path, "rb") as key_file:
            return key_file.read().strip()
    secret, server = read(secret_key_file), read(server_key_file)
    public = zmq.curve_public(secret)
    make_socket = zmq.Context.socket

    def socket(context, kind, **kwargs):
        made = make_socket(context, kind, **kwargs)
        made.curve_secretkey, made.curve_publickey, made.curve_serverkey = secret, public, server
        return made
    zmq.Context.socket = socket


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("endpoint")
    parser.add_argument("--service", default="Echo.say")
    parser.add_argument("--body", default='{"text":"v01"}')
    parser.add_argument("--timeout", type=int, default=2500, help="ms per attempt")
    parser.add_argument("--retries", type=int, default=3, help="attempts")
    parser.add_argument("--curve-secret-key", help="this client's secret key file")
    parser.add_argument("--server-key", help="the coordinator's public key file")
    args = parser.parse_args()
    if args.curve_secret_key:
        use_curve(args.curve_secret_key, args.server_key)

    client = MajorDomoClient(args.endpoint)
    client.timeout = args.timeout  # class attributes of mdcliapi; set per instance
    client.retries = args.retries
    # mdcliapi wants bytes: the service frame and every body frame.
    reply = client.send(args.service.encode(), [args.body.encode()])
    # Not client.destroy(): it refers to self.context, which does not exist.
    client.ctx.destroy(0)
    if reply is None:
        print("no reply", file=sys.stderr)
        return 2
    for frame in reply:
        print(frame.decode("utf-8", "backslashreplace"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A real SMTP server for linkpatrol's email tests (Debian's python3-aiosmtpd), run by smtp-receiver.ts.

Every message it accepts is parsed with Python's own MIME parser (email.policy.default) and written to OUT as
N.json (sender, recipients, each header as received, the decoded subject, the text and HTML parts, the raw
message), so the test reads what a mail client would show. What it does with the next message is read from
OUT/mode at each one, so a test changes it while the server runs:
  accept (default), refuse (554 at DATA), refuse-rcpt (550 at RCPT), drop (closes the connection at MAIL),
  hang (never answers DATA).
Options: --starttls CERT KEY (STARTTLS offered and required), --tls CERT KEY (implicit TLS),
--auth USER:PASS (AUTH PLAIN/LOGIN required). Prints "READY" once listening; stops on SIGTERM or stdin EOF.
"""
import argparse
import asyncio
import email
import email.policy
import json
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def read_mode(out):
    try:
        with open(os.path.join(out, "mode")) as f:
            return f.read().strip() or "accept"
    except FileNotFoundError:
        return "accept"


class Recorder:
    def __init__(self, out):
        self.out = out
        self.count = 0

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if read_mode(self.out) == "drop":
            server.transport.close()
            return "421 4.3.0 closing"
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if read_mode(self.out) == "refuse-rcpt":
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        mode = read_mode(self.out)
        if mode == "refuse":
            return "554 5.7.1 Message rejected by policy"
        if mode == "hang":
            await asyncio.sleep(3600)
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        text = msg.get_body(preferencelist=("plain",))
        html = msg.get_body(preferencelist=("html",))
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "headers": [[name, str(value)] for name, value in msg.items()],
            "raw_headers": envelope.content.split(b"\r\n\r\n", 1)[0].decode("utf-8", "replace"),
            "subject": str(msg["subject"]),
            "content_type": msg.get_content_type(),
            "text": text.get_content() if text is not None else None,
            "html": html.get_content() if html is not None else None,
            "size": len(envelope.content),
            "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None,
            "authenticated": session.authenticated,
        }
        self.count += 1
        path = os.path.join(self.out, f"{self.count}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(record, f)
        os.rename(path + ".tmp", path)
        return "250 2.0.0 Ok: queued as TEST%d" % self.count


def context(cert, key):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    return ctx


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--starttls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--auth")
    args = parser.parse_args()

    kwargs = {}
    if args.starttls:
        kwargs.update(tls_context=context(*args.starttls), require_starttls=True)
    if args.tls:
        kwargs.update(ssl_context=context(*args.tls))
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, data):
            ok = isinstance(data, LoginPassword) and data.login.decode() == user and data.password.decode() == password
            return AuthResult(success=ok)

        kwargs.update(authenticator=authenticator, auth_required=True, auth_require_tls=bool(args.starttls or args.tls))

    controller = Controller(Recorder(args.out), hostname="127.0.0.1", port=args.port, **kwargs)
    controller.start()
    print("READY", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait()
    controller.stop()


if __name__ == "__main__":
    main()

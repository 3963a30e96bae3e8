import LegibleCore
import LegibleHTTP2
import Testing

struct GRPCRequestTests {
    private func headers(
        method: String = "POST", path: String = "/legible.v1.Recognizer/Stream",
        contentType: String? = "application/grpc", extra: [HTTP2Header] = []
    ) -> [HTTP2Header] {
        [HTTP2Header(":method", method), HTTP2Header(":scheme", "http"), HTTP2Header(":path", path)]
            + (contentType.map { [HTTP2Header("content-type", $0)] } ?? []) + [HTTP2Header("te", "trailers")] + extra
    }

    private func refusal(_ headers: [HTTP2Header]) -> GRPCRequest.Refusal? {
        do throws(GRPCRequest.Refusal) {
            _ = try GRPCRequest(headers: headers)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyMethodIsServed() throws {
        for method in GRPCRequest.Method.allCases {
            #expect(try GRPCRequest(headers: headers(path: method.rawValue)).method == method)
        }
        for type in ["application/grpc+proto", "application/grpc; charset=utf-8", "application/grpc+proto ;x=y"] {
            #expect(refusal(headers(contentType: type)) == nil, "\(type)")
        }
        // A longer subtype is not protobuf.
        #expect(
            refusal(headers(contentType: "application/grpc+protobuf"))
                .map { if case .grpc(.unimplemented, _) = $0 { true } else { false } } == true)
    }

    /// What a stock gRPC client or an HTTP client gets for each request the server will not serve.
    @Test func eachRefusalHasItsAnswer() {
        #expect(refusal(headers(method: "GET")).map { if case .http(405, _) = $0 { true } else { false } } == true)
        #expect(
            refusal(headers(contentType: "text/plain")).map { if case .http(415, _) = $0 { true } else { false } }
                == true)
        #expect(refusal(headers(contentType: nil)).map { if case .http(415, _) = $0 { true } else { false } } == true)
        #expect(
            refusal(headers(contentType: "application/grpc+json"))
                .map { if case .grpc(.unimplemented, _) = $0 { true } else { false } } == true)
        #expect(
            refusal(headers(path: "/legible.v1.Recognizer/Nope"))
                == .grpc(.unimplemented, "unknown method /legible.v1.Recognizer/Nope"))
        #expect(
            refusal(headers(extra: [HTTP2Header("grpc-encoding", "gzip")]))
                .map { if case .grpc(.unimplemented, _) = $0 { true } else { false } } == true)
        #expect(refusal(headers(extra: [HTTP2Header("grpc-encoding", "identity")])) == nil)
        #expect(
            refusal(headers(extra: [HTTP2Header("grpc-timeout", "10x")]))
                .map { if case .grpc(.invalidArgument, _) = $0 { true } else { false } } == true)
        #expect(
            refusal(headers(extra: [HTTP2Header("authorization", "Basic abc")]))
                .map { if case .grpc(.unauthenticated, _) = $0 { true } else { false } } == true)
    }

    @Test func theTokenAndTheDeadlineAreRead() throws {
        let call = try GRPCRequest(
            headers: headers(
                extra: [HTTP2Header("grpc-timeout", "250m"), HTTP2Header("authorization", "Bearer s3cret")]))
        #expect(call.timeout == .milliseconds(250))
        #expect(call.bearerToken == "s3cret")
        let bare = try GRPCRequest(headers: headers())
        #expect(bare.timeout == nil && bare.bearerToken == nil)
    }

    /// grpc-timeout: 1 to 8 digits and one of six units.
    @Test func timeoutsInEveryUnit() {
        #expect(GRPCRequest.timeout("2H") == .seconds(7200))
        #expect(GRPCRequest.timeout("3M") == .seconds(180))
        #expect(GRPCRequest.timeout("5S") == .seconds(5))
        #expect(GRPCRequest.timeout("100m") == .milliseconds(100))
        #expect(GRPCRequest.timeout("99999999u") == .microseconds(99_999_999))
        #expect(GRPCRequest.timeout("1n") == .nanoseconds(1))
        for bad in ["", "S", "123456789S", "10", "1.5S", "-1S", "10s ", "１S"] {
            #expect(GRPCRequest.timeout(bad) == nil, "\(bad)")
        }
    }
}

struct GRPCStatusTests {
    @Test func trailersCarryTheStatusAndAPercentEncodedMessage() {
        #expect(GRPCStatus.ok == [HTTP2Header("grpc-status", "0")])
        #expect(GRPCStatus.trailers(.unimplemented) == [HTTP2Header("grpc-status", "12")])
        #expect(
            GRPCStatus.trailers(.invalidArgument, message: "100% sûr\n")
                == [HTTP2Header("grpc-status", "3"), HTTP2Header("grpc-message", "100%25 s%C3%BBr%0A")])
    }

    @Test func refusalsAreTrailersOnlyOrHTTP() {
        #expect(GRPCStatus.refusalHeaders(.http(status: 415, reason: "x")) == [HTTP2Header(":status", "415")])
        #expect(
            GRPCStatus.refusalHeaders(.grpc(.unauthenticated, "no token"))
                == [
                    HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc"),
                    HTTP2Header("grpc-status", "16"), HTTP2Header("grpc-message", "no token"),
                ])
    }
}

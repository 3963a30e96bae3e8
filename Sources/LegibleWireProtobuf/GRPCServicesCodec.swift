internal import CProtobufC
public import LegibleCore
internal import LegibleProtoC

/// The messages of gRPC's health service (`grpc.health.v1.Health`, from Debian's grpc-proto),
/// through protobuf-c like Legible's own.
public enum HealthCodec {
    /// `HealthCheckResponse.ServingStatus`.
    public enum ServingStatus: Int32, Sendable, Hashable {
        case unknown = 0
        case serving = 1
        case notServing = 2
        /// Watch's answer for a service the server does not know.
        case serviceUnknown = 3
    }

    /// The `service` a HealthCheckRequest asks about ("" is the server as a whole).
    public static func decodeRequest(_ bytes: [UInt8]) throws(LegibleError) -> String {
        try ProtobufCodec.unpacked(
            bytes, grpc__health__v1__health_check_request__unpack,
            grpc__health__v1__health_check_request__free_unpacked,
            notA: "grpc.health.v1.HealthCheckRequest", fromPeer: true
        ) { (m) throws(LegibleError) in Decode.string(m.service) }
    }

    public static func encodeResponse(_ status: ServingStatus) -> [UInt8] {
        EncodeArena.using { arena in
            let m = arena.message(grpc__health__v1__health_check_response__init)
            m.pointee.status = Grpc__Health__V1__HealthCheckResponse__ServingStatus(rawValue: UInt32(status.rawValue))
            return ProtobufCodec.pack(
                m, grpc__health__v1__health_check_response__get_packed_size,
                grpc__health__v1__health_check_response__pack)
        }
    }
}

/// gRPC server reflection (`grpc.reflection.v1.ServerReflection` and its older name
/// `grpc.reflection.v1alpha`, whose messages are the same field for field): what lets grpcurl
/// and other tools list and describe Legible's services without the .proto. Answers from the
/// table of descriptors `scripts/generate-protos.sh` generates from protoc's output
/// (Sources/LegibleProtoC/service_descriptors.c).
public enum ServerReflection {
    /// The services the server serves, by full name.
    public static let services: [String] = (0..<Int(legible_descriptor_service_count)).map {
        String(cString: legible_descriptor_services[$0]!)
    }

    /// The name of every file described (`legible/v1/legible.proto`, …).
    public static let files: [String] = (0..<Int(legible_descriptor_file_count)).map {
        String(cString: legible_descriptor_files[$0].name)
    }

    /// The serialized ServerReflectionResponse to one serialized ServerReflectionRequest:
    /// listed services, a file by name, the file defining a symbol, or an error response
    /// (NOT_FOUND, INVALID_ARGUMENT) that keeps the stream open, as the protocol asks.
    ///
    /// - Throws: `invalidArgument` when the bytes are not a ServerReflectionRequest.
    public static func respond(to request: [UInt8]) throws(LegibleError) -> [UInt8] {
        try ProtobufCodec.unpacked(
            request, grpc__reflection__v1__server_reflection_request__unpack,
            grpc__reflection__v1__server_reflection_request__free_unpacked,
            notA: "grpc.reflection.v1.ServerReflectionRequest", fromPeer: true
        ) { (m) throws(LegibleError) -> [UInt8] in
            EncodeArena.using { arena in
                let response = arena.message(grpc__reflection__v1__server_reflection_response__init)
                // The unpacked request lives until this closure returns, after the pack.
                let original = arena.array(of: Grpc__Reflection__V1__ServerReflectionRequest.self, count: 1)
                original.initialize(to: m)
                response.pointee.original_request = original
                if let host = m.host { response.pointee.valid_host = host }
                answer(m, into: response, arena: arena)
                return ProtobufCodec.pack(
                    response, grpc__reflection__v1__server_reflection_response__get_packed_size,
                    grpc__reflection__v1__server_reflection_response__pack)
            }
        }
    }

    private static func answer(
        _ m: Grpc__Reflection__V1__ServerReflectionRequest,
        into response: UnsafeMutablePointer<Grpc__Reflection__V1__ServerReflectionResponse>, arena: EncodeArena
    ) {
        switch m.message_request_case {
        case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_LIST_SERVICES:
            let list = arena.message(grpc__reflection__v1__list_service_response__init)
            (list.pointee.n_service, list.pointee.service) = arena.messages(services) { name in
                let service = arena.message(grpc__reflection__v1__service_response__init)
                arena.set(&service.pointee.name, name)
                return service
            }
            response.pointee.message_response_case =
                GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_LIST_SERVICES_RESPONSE
            response.pointee.list_services_response = list
        case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_BY_FILENAME:
            let name = Decode.string(m.file_by_filename)
            guard let index = files.firstIndex(of: name) else {
                return fail(response, .notFound, "no file \(name)", arena: arena)
            }
            describe(file: index, into: response, arena: arena)
        case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_CONTAINING_SYMBOL:
            let symbol = Decode.string(m.file_containing_symbol)
            guard let index = file(defining: symbol) else {
                return fail(response, .notFound, "no symbol \(symbol)", arena: arena)
            }
            describe(file: index, into: response, arena: arena)
        case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_CONTAINING_EXTENSION:
            fail(response, .notFound, "no extensions are defined", arena: arena)
        case GRPC__REFLECTION__V1__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_ALL_EXTENSION_NUMBERS_OF_TYPE:
            let type = Decode.string(m.all_extension_numbers_of_type)
            guard file(defining: type) != nil else { return fail(response, .notFound, "no type \(type)", arena: arena) }
            let numbers = arena.message(grpc__reflection__v1__extension_number_response__init)
            arena.set(&numbers.pointee.base_type_name, type)
            response.pointee.message_response_case =
                GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ALL_EXTENSION_NUMBERS_RESPONSE
            response.pointee.all_extension_numbers_response = numbers
        default:
            fail(response, .invalidArgument, "the request asks nothing", arena: arena)
        }
    }

    /// The index of the file that defines `symbol` (the table is sorted by name).
    static func file(defining symbol: String) -> Int? {
        var low = 0
        var high = Int(legible_descriptor_symbol_count)
        while low < high {
            let middle = (low + high) / 2
            let entry = legible_descriptor_symbols[middle]
            let name = String(cString: entry.name)
            // The generator sorts with Python's string order: by code point, as UTF-8 bytes are.
            if name == symbol { return Int(entry.file) }
            if name.utf8.lexicographicallyPrecedes(symbol.utf8) { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// A FileDescriptorResponse of file `index` (none of the files imports another).
    private static func describe(
        file index: Int, into response: UnsafeMutablePointer<Grpc__Reflection__V1__ServerReflectionResponse>,
        arena: EncodeArena
    ) {
        let file = legible_descriptor_files[index]
        let descriptors = arena.message(grpc__reflection__v1__file_descriptor_response__init)
        let list = arena.array(of: ProtobufCBinaryData.self, count: 1)
        list.initialize(to: ProtobufCBinaryData(len: file.length, data: UnsafeMutablePointer(mutating: file.bytes)))
        descriptors.pointee.n_file_descriptor_proto = 1
        descriptors.pointee.file_descriptor_proto = list
        response.pointee.message_response_case =
            GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_FILE_DESCRIPTOR_RESPONSE
        response.pointee.file_descriptor_response = descriptors
    }

    private static func fail(
        _ response: UnsafeMutablePointer<Grpc__Reflection__V1__ServerReflectionResponse>, _ code: LegibleError.Code,
        _ message: String, arena: EncodeArena
    ) {
        let error = arena.message(grpc__reflection__v1__error_response__init)
        error.pointee.error_code = code.rawValue
        arena.set(&error.pointee.error_message, message)
        response.pointee.message_response_case =
            GRPC__REFLECTION__V1__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ERROR_RESPONSE
        response.pointee.error_response = error
    }
}

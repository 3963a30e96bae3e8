/// What kind of thing an `Entity` is (`legible.v1.EntityKind`).
public enum EntityKind: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible, Codable {
    case phoneNumber = 1
    case emailAddress = 2
    case url = 3
    case date = 4
    /// 12 to 19 digits that pass the Luhn check.
    case paymentCard = 5

    public var description: String {
        switch self {
        case .phoneNumber: "phone_number"
        case .emailAddress: "email_address"
        case .url: "url"
        case .date: "date"
        case .paymentCard: "payment_card"
        }
    }
}

/// A phone number, e-mail address, URL, date or payment-card number found within one line of
/// recognized text (`legible.v1.Entity`): the server side of the data detection camera UIs do.
public struct Entity: Sendable, Hashable, Codable {
    public var kind: EntityKind
    /// The matched text, as recognized.
    public var text: String
    /// The frames of the elements the match spans, in reading order.
    public var frames: [Rect]

    public init(kind: EntityKind, text: String, frames: [Rect]) {
        self.kind = kind
        self.text = text
        self.frames = frames
    }
}

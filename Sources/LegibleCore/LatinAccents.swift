/// Latin letters without their accents, for telling apart two readings of a line that differ
/// only in diacritics ("HOPITAL" and "HÔPITAL"): a model without accented letters (`eng`) reads
/// the base letter alone.
public enum LatinAccents {
    /// `text` with every accented Latin letter of U+00C0…U+024F and U+1E00…U+1EFF written as its
    /// base letter and combining marks (U+0300…U+036F) left out; letters of their own shape
    /// (ß, æ, ø, đ, ł) stay. The table is Unicode's canonical decomposition, first scalar kept.
    public static func withoutAccents(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0300...0x036F: continue
            case 0x00C0..<0x0250: out.append(latin1AndExtended[Int(scalar.value - 0x00C0)])
            case 0x1E00..<0x1F00: out.append(extendedAdditional[Int(scalar.value - 0x1E00)])
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether `a` and `b` differ, and only in accents and spacing: letter by letter (spaces
    /// aside) the same base letter, or accented letters on both sides — a model with few
    /// accents that saw one may write the wrong one ("cété" for "côté").
    public static func differOnlyInAccents(_ a: String, _ b: String) -> Bool {
        let left = Array(a.filter { !$0.isWhitespace })
        let right = Array(b.filter { !$0.isWhitespace })
        guard left.count == right.count, left != right else { return false }
        return zip(left, right).allSatisfy { x, y in
            let (baseX, baseY) = (withoutAccents(String(x)), withoutAccents(String(y)))
            return baseX == baseY || (baseX != String(x) && baseY != String(y))
        }
    }

    private static let latin1AndExtended = Array(
        "AAAAAAÆCEEEEIIIIÐNOOOOO×ØUUUUYÞßaaaaaaæceeeeiiiiðnooooo÷øuuuuyþyAaAaAaCcCcCcCcDdĐđEeEeEeEeEeGgGgGgGgHhĦħIiIiIiIiIıĲĳJjKkĸLlLlLlĿŀŁłNnNnNnŉŊŋOoOoOoŒœRrRrRrSsSsSsSsTtTtŦŧUuUuUuUuUuUuWwYyYZzZzZzſƀƁƂƃƄƅƆƇƈƉƊƋƌƍƎƏƐƑƒƓƔƕƖƗƘƙƚƛƜƝƞƟOoƢƣƤƥƦƧƨƩƪƫƬƭƮUuƱƲƳƴƵƶƷƸƹƺƻƼƽƾƿǀǁǂǃǄǅǆǇǈǉǊǋǌAaIiOoUuUuUuUuUuǝAaAaÆæǤǥGgKkOoOoƷʒjǱǲǳGgǶǷNnAaÆæØøAaAaEeEeIiIiOoOoRrRrUuUuSsTtȜȝHhȠȡȢȣȤȥAaEeOoOoOoOoYyȴȵȶȷȸȹȺȻȼȽȾȿɀɁɂɃɄɅɆɇɈɉɊɋɌɍɎɏ"
            .unicodeScalars)
    private static let extendedAdditional = Array(
        "AaBbBbBbCcDdDdDdDdDdEeEeEeEeEeFfGgHhHhHhHhHhIiIiKkKkKkLlLlLlLlMmMmMmNnNnNnNnOoOoOoOoPpPpRrRrRrRrSsSsSsSsSsTtTtTtTtUuUuUuUuUuVvVvWwWwWwWwWwXxXxYyZzZzZzhtwyẚſẜẝẞẟAaAaAaAaAaAaAaAaAaAaAaAaEeEeEeEeEeEeEeEeIiIiOoOoOoOoOoOoOoOoOoOoOoOoUuUuUuUuUuUuUuYyYyYyYyỺỻỼỽỾỿ"
            .unicodeScalars)
}

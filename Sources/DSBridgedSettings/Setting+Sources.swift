// SPDX-License-Identifier: MIT
import DSBridge

extension Setting.Kind {
    /// The value of an environment variable. It is read as JSON when it parses (numbers,
    /// booleans, a quoted string), else as plain text; a list is words separated by spaces
    /// or commas. `nil` when the text is not of this kind (`deep` for an integer).
    func read(environment text: String) -> SettingValue? {
        if case .list = self {
            return .list(text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
        }
        let json = try? JSONParser.parse(text)
        switch self {
        case .text, .choice:
            return .text(json?.stringValue ?? text)
        case .integer, .toggle, .list:
            return json.flatMap(read(file:))
        }
    }

    /// The value of a config file key, `nil` when the JSON value is not of this kind.
    func read(file value: JSONValue) -> SettingValue? {
        switch self {
        case .text, .choice:
            return value.stringValue.map(SettingValue.text)
        case .integer:
            return value.integerValue.flatMap { Int(exactly: $0) }.map(SettingValue.integer)
        case .toggle:
            return value.boolValue.map(SettingValue.toggle)
        case .list:
            guard let array = value.arrayValue else { return nil }
            let strings = array.compactMap(\.stringValue)
            return strings.count == array.count ? .list(strings) : nil
        }
    }

    /// What a value of this kind looks like, for a wrong-type message.
    var expectedDescription: String {
        switch self {
        case .text, .choice: return "a string"
        case .integer: return "an integer"
        case .toggle: return "true or false"
        case .list: return "an array of strings"
        }
    }
}

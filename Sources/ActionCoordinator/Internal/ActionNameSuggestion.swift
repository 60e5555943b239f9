/// "Did you mean": the served action name closest to a mistyped one.
enum ActionNameSuggestion {
    /// The closest of `names` to `name` by edit distance (ignoring case), if close enough to
    /// be a typo: at most a third of the name's length.
    static func closest(to name: String, among names: [String]) -> String? {
        let target = Array(name.lowercased())
        let limit = max(1, target.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in names where candidate != name {
            let distance = editDistance(target, Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance, one row at a time.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

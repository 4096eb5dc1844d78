/// The known command nearest to an unknown verb when it is at most 2 edits away (the first
/// nearest in `help` order), else nil: the answer of measuring the edit distance to every
/// name, for less. Only names whose length is within 2 of the verb's are measured, on integer
/// codes, and a measure stops once every cell of a row is above what could still win (row
/// minima never decrease), since every unknown verb would otherwise be measured against every name.
func nearestCommand(to verb: String) -> String? {
    guard verb.count <= 32 else { return nil }
    // One code per Character: its byte when it is a single ASCII byte, else -1, which no byte of
    // a (pure ASCII) command name equals, just as no such Character equals an ASCII one.
    let codes = verb.map { c in c.utf8.count == 1 ? Int(c.utf8.first!) : -1 }
    var best: (name: String, distance: Int)?
    for (name, nameCodes) in commandNameCodes where abs(nameCodes.count - codes.count) <= 2 {
        let d = boundedEditDistance(nameCodes, codes, limit: min(2, (best?.distance ?? 3) - 1))
        if let d { best = (name, d) }
    }
    return best?.name
}

/// Every command name as ASCII byte codes, for `nearestCommand`.
private let commandNameCodes: [(name: String, codes: [Int])] = Registry.helpNames.map { ($0, $0.utf8.map(Int.init)) }

/// The edit distance of `a` and `b` when it is at most `limit`, else nil. Plain `while` loops:
/// the fuzz build is unoptimized, where ranges go through unspecialized generics.
private func boundedEditDistance(_ a: [Int], _ b: [Int], limit: Int) -> Int? {
    guard limit >= 0, abs(a.count - b.count) <= limit else { return nil }
    var row = [Int](repeating: 0, count: b.count + 1)
    var j = 0
    while j <= b.count { row[j] = j; j += 1 }
    var i = 0
    while i < a.count {
        var prev = row[0]
        row[0] = i + 1
        var rowMin = row[0]
        j = 0
        while j < b.count {
            let cur = row[j + 1]
            row[j + 1] = Swift.min(cur + 1, row[j] + 1, prev + (a[i] == b[j] ? 0 : 1))
            prev = cur
            rowMin = Swift.min(rowMin, row[j + 1])
            j += 1
        }
        if rowMin > limit { return nil }
        i += 1
    }
    return row[b.count] <= limit ? row[b.count] : nil
}

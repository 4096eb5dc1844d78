import Foundation

/// The time series of every strategy, one CSV row per sample.
public func coverageCSV(_ series: [(name: String, samples: [CoverageSample])]) -> String {
    var out = "strategy,time_ms,ops_created,coverage,ops_fully_covered,messages,bytes,online_nodes\n"
    for (name, samples) in series {
        for s in samples {
            out += "\(name),\(s.timeMs),\(s.opsCreated),\(String(format: "%.6f", s.coverage)),\(s.opsFullyCovered),"
            out += "\(s.messages),\(s.bytes),\(s.onlineNodes)\n"
        }
    }
    return out
}

/// Coverage of the eligible nodes over virtual time, one line per strategy, with labelled
/// axes, a grid and a legend. A plain SVG 1.1 document.
public func coverageSVG(title: String, series: [(name: String, samples: [CoverageSample])]) -> String {
    // The legend column grows with the longest strategy name (about 7.5 px a character at 13 px).
    let longest = Double(series.map(\.name.count).max() ?? 8)
    let left = 80.0, right = max(210, 60 + 7.5 * longest), top = 56.0, bottom = 70.0
    let plotW = 570.0, height = 520.0
    let width = left + plotW + right, plotH = height - top - bottom
    let maxMs = max(1, series.flatMap { $0.samples.map(\.timeMs) }.max() ?? 1)
    let maxS = Double(maxMs) / 1000
    let step = niceStep(maxS / 8)
    let colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]
    func x(_ ms: UInt64) -> Double { left + plotW * (Double(ms) / 1000) / maxS }
    func y(_ c: Double) -> Double { top + plotH * (1 - min(1, max(0, c))) }
    func f(_ v: Double) -> String { String(format: "%.1f", v) }
    func esc(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;")
    }

    var s = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
        viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="13">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(f(left))" y="28" font-size="16" font-weight="bold">\(esc(title))</text>

        """
    // Grid and y ticks (0 %...100 %).
    for i in 0...10 {
        let c = Double(i) / 10
        s += "<line x1=\"\(f(left))\" y1=\"\(f(y(c)))\" x2=\"\(f(left + plotW))\" y2=\"\(f(y(c)))\" stroke=\"#e4e4e4\"/>\n"
        s += "<text x=\"\(f(left - 8))\" y=\"\(f(y(c) + 4))\" text-anchor=\"end\">\(i * 10)</text>\n"
    }
    // x ticks.
    var t = 0.0
    while t <= maxS + 1e-9 {
        let px = left + plotW * t / maxS
        s += "<line x1=\"\(f(px))\" y1=\"\(f(top))\" x2=\"\(f(px))\" y2=\"\(f(top + plotH))\" stroke=\"#f0f0f0\"/>\n"
        s += "<text x=\"\(f(px))\" y=\"\(f(top + plotH + 20))\" text-anchor=\"middle\">\(tickLabel(t, step))</text>\n"
        t += step
    }
    // Axes and their titles.
    s += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"none\" stroke=\"#333\"/>\n"
    s += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(height - 22))\" text-anchor=\"middle\">virtual time (s)</text>\n"
    s +=
        "<text transform=\"translate(24 \(f(top + plotH / 2))) rotate(-90)\" text-anchor=\"middle\">coverage of eligible nodes (%)</text>\n"
    // Lines.
    for (i, series) in series.enumerated() {
        let color = colors[i % colors.count]
        let points = series.samples.map { "\(f(x($0.timeMs))),\(f(y($0.coverage)))" }.joined(separator: " ")
        s += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points)\"/>\n"
    }
    // Legend.
    let lx = left + plotW + 20
    s += "<text x=\"\(f(lx))\" y=\"\(f(top + 4))\" font-weight=\"bold\">strategy</text>\n"
    for (i, series) in series.enumerated() {
        let ly = top + 26 + Double(i) * 22
        let color = colors[i % colors.count]
        s += "<line x1=\"\(f(lx))\" y1=\"\(f(ly - 4))\" x2=\"\(f(lx + 26))\" y2=\"\(f(ly - 4))\" stroke=\"\(color)\" stroke-width=\"3\"/>\n"
        s += "<text x=\"\(f(lx + 34))\" y=\"\(f(ly))\">\(esc(series.name))</text>\n"
    }
    s += "</svg>\n"
    return s
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
func niceStep(_ raw: Double) -> Double {
    guard raw > 0 else { return 1 }
    let p = pow(10, floor(log10(raw)))
    for m in [1.0, 2, 5, 10] where m * p >= raw { return m * p }
    return 10 * p
}

func tickLabel(_ v: Double, _ step: Double) -> String {
    step >= 1 ? String(Int(v.rounded())) : String(format: "%.\(max(1, Int(-floor(log10(step)))))f", v)
}

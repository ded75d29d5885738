internal import Foundation

/// The Swift snippets a test file compiles for DocC articles: each lies between a
/// `// snippet <article>` line and an `// end snippet` line. A test checks that each article
/// still holds its snippets word for word, so an article and the code it shows cannot drift.
public enum DocCSnippets {
    /// The snippets of the source file at `path`, by article, with their common indentation removed.
    public static func extract(fromSource path: String) throws -> [(article: String, text: String)] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var found: [(article: String, text: String)] = []
        var current: (article: String, lines: [Substring])?
        for line in lines {
            let trimmed = line.drop(while: { $0 == " " })
            if trimmed.hasPrefix("// snippet ") {
                current = (String(trimmed.dropFirst("// snippet ".count)), [])
            } else if trimmed == "// end snippet", let snippet = current {
                let indent = snippet.lines.filter { !$0.isEmpty }.map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
                found.append((snippet.article, snippet.lines.map { String($0.dropFirst(min(indent, $0.count))) }.joined(separator: "\n")))
                current = nil
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        return found
    }

    /// The snippets of `path` that the article named in each no longer holds (as a fenced Swift
    /// block, or the end of one), as messages; empty when every article holds its snippets.
    public static func drifted(fromSource path: String, articles directory: String) throws -> (count: Int, problems: [String]) {
        let snippets = try extract(fromSource: path)
        var problems: [String] = []
        for snippet in snippets {
            let article = try String(contentsOfFile: directory + "/" + snippet.article, encoding: .utf8)
            if !(article.contains("```swift\n" + snippet.text + "\n```") || article.contains(snippet.text + "\n```")) {
                problems.append("\(snippet.article) no longer holds:\n\(snippet.text)")
            }
        }
        return (snippets.count, problems)
    }
}

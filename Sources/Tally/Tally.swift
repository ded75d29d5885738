// The umbrella module: one `import Tally` brings the engine and the five products.
//
// - `TallyEngine`: money, time, events and their registry, the log-backed store, the write
//   pipeline, projections, time travel, audit and import.
// - `TallyProducts`: the wealth account, the monthly budget and pots, envelopes and
//   challenges, net worth and the portfolio X-ray, what-if; each registers its event types and
//   read models through the engine's public extension points (``LedgerFeature``).

@_exported public import TallyEngine
@_exported public import TallyProducts

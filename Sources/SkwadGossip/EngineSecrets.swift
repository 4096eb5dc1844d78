/// Where an engine's secrets come from: the seeds of its ephemeral session keys and the
/// secret its stateless cookies are keyed with (PROTOCOL §8). Building an engine requires
/// one, so a shell cannot forget them and leave a node on the network with keys anyone who
/// guesses the seed could compute.
public struct EngineSecrets: Sendable {
    /// Nil: drawn from the engine's seeded generator.
    let keySeeds: (@Sendable () -> [UInt8])?
    /// Nil: derived from the engine's seed.
    let cookieSecret: [UInt8]?

    /// Secure randomness (`random(n)` gives n bytes): what a node on a network uses.
    public static func secure(random: @escaping @Sendable (Int) -> [UInt8]) -> EngineSecrets {
        EngineSecrets(keySeeds: { random(32) }, cookieSecret: random(32))
    }

    /// Everything from the engine's seed: reproducible, for simulations and tests only.
    public static let seeded = EngineSecrets(keySeeds: nil, cookieSecret: nil)
}

import SkwadReplica

extension ReplicaConfig {
    /// Admission without the stamp-work floors: for tests of other rules and for simulated
    /// networks, which model dissemination, not the cost of identities.
    public static var noFloors: ReplicaConfig { ReplicaConfig(pseudonymPowFloor: 0, genesisPowFloor: 0) }
}

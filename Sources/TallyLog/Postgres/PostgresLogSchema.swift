/// The tables of logs on PostgreSQL, created and migrated by the log itself.
///
/// ```sql
/// tally_ledgers   (ledger PK, head_sequence, head_hash, last_recorded_at, epoch, owner, lease_until, created_at)
/// tally_frames    (ledger, first_sequence, last_sequence, recorded_at_min, recorded_at_max, last_hash, frame)
///                 PRIMARY KEY (ledger, first_sequence); frame STORAGE EXTERNAL (already LZ4)
/// tally_ledger_files (ledger, name, content, updated_at) PRIMARY KEY (ledger, name)
/// tally_nodes     (node PK, address, seen_at)
/// ```
///
/// One row of `tally_ledgers` per ledger is its head: the last sequence number and chain hash,
/// and who may write (the fencing `epoch`, the `owner` and its lease). Event numbers come from
/// that row, never from a sequence: a compare-and-set on it orders commits, so sequence order
/// is visibility order, and a rolled-back append leaves no hole.
///
/// A row of `tally_frames` is one commit's frame, byte for byte the frame a file log writes
/// (header, LZ4 body, checksums, chain hash, sealing), so a ledger's digest is the same in
/// both and a frame moves between them unchanged. A group commit is one row; reading a range of
/// sequence numbers is one index range scan on the primary key.
///
/// `tally_nodes` lists the service nodes of a deployment and the address each answers at, so
/// that a request for a ledger another node holds is sent there.
///
/// `tally_ledger_files` holds the few small files a store keeps beside its log (its subject
/// keys, an encrypted store's wrapped keys), so that every node of a deployment has them.
enum PostgresLogSchema {
    /// The schema version this code writes; a database at a later version is refused.
    static let version: Int64 = 2

    /// The steps from version n − 1 to n, in order.
    static let migrations: [String] = [
        """
        CREATE TABLE tally_ledgers (
            ledger text PRIMARY KEY,
            head_sequence bigint NOT NULL CHECK (head_sequence >= 0),
            head_hash bytea NOT NULL,
            last_recorded_at bigint NOT NULL,
            epoch bigint NOT NULL DEFAULT 0,
            owner text,
            lease_until timestamptz,
            created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE tally_frames (
            ledger text NOT NULL REFERENCES tally_ledgers (ledger),
            first_sequence bigint NOT NULL CHECK (first_sequence >= 1),
            last_sequence bigint NOT NULL,
            recorded_at_min bigint NOT NULL,
            recorded_at_max bigint NOT NULL,
            last_hash bytea NOT NULL,
            frame bytea NOT NULL,
            PRIMARY KEY (ledger, first_sequence),
            CHECK (last_sequence >= first_sequence)
        );
        ALTER TABLE tally_frames ALTER COLUMN frame SET STORAGE EXTERNAL;
        CREATE INDEX tally_frames_recorded ON tally_frames (ledger, recorded_at_max);
        CREATE TABLE tally_ledger_files (
            ledger text NOT NULL REFERENCES tally_ledgers (ledger),
            name text NOT NULL,
            content bytea NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (ledger, name)
        );
        """,
        """
        CREATE TABLE tally_nodes (
            node text PRIMARY KEY,
            address text NOT NULL,
            seen_at timestamptz NOT NULL DEFAULT now()
        );
        """,
    ]

    /// Creates the tables, or brings them to ``version``; safe to run from many nodes at once.
    static func migrate(_ connection: PostgresConnection) throws {
        // At the current version already (every open but the first): nothing to lock.
        if let rows = try? connection.query("SELECT version FROM tally_schema"), rows.count == 1, rows.int64(0, 0) == version { return }
        try connection.execute("BEGIN")
        do {
            // Creating a table "if not exists" is not safe against a concurrent creation: the
            // migrations are serialised by a lock held until this transaction ends (a
            // transaction-level advisory lock, taken here only, never in the write path).
            try connection.execute("SELECT pg_advisory_xact_lock(7140290001)")
            try connection.execute("CREATE TABLE IF NOT EXISTS tally_schema (version bigint NOT NULL)")
            try connection.execute("LOCK TABLE tally_schema IN ACCESS EXCLUSIVE MODE")
            let rows = try connection.query("SELECT version FROM tally_schema")
            let current = rows.count == 0 ? 0 : rows.int64(0, 0)
            guard current <= version else {
                throw LogError(.unsupportedVersion, "the database at \(connection.displayName) holds logs of schema version \(current); this build reads up to \(version): upgrade Tally")
            }
            if current < version {
                for step in migrations[Int(current)..<Int(version)] { try connection.execute(step) }
                if rows.count == 0 {
                    try connection.query("INSERT INTO tally_schema (version) VALUES ($1)", [.int64(version)])
                } else {
                    try connection.query("UPDATE tally_schema SET version = $1", [.int64(version)])
                }
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            if let error = error as? PostgresError { throw error.logError }
            throw error
        }
    }

    // MARK: Statements

    /// Takes a ledger's lease: a new epoch, when nobody holds it, the lease ran out, or the same
    /// owner asks again. `$1` ledger, `$2` owner, `$3` lease seconds.
    static let takeLease = """
        UPDATE tally_ledgers SET epoch = epoch + 1, owner = $2, lease_until = now() + make_interval(secs => $3)
        WHERE ledger = $1 AND (owner IS NULL OR lease_until IS NULL OR lease_until < now() OR owner = $2)
        RETURNING epoch, head_sequence, head_hash, last_recorded_at
        """

    /// Takes a ledger's lease from an owner known to be gone (a process of this machine that
    /// no longer runs), before its lease runs out. `$1` ledger, `$2` owner, `$3` lease seconds,
    /// `$4` the gone owner.
    static let takeStaleLease = """
        UPDATE tally_ledgers SET epoch = epoch + 1, owner = $2, lease_until = now() + make_interval(secs => $3)
        WHERE ledger = $1 AND owner = $4
        RETURNING epoch, head_sequence, head_hash, last_recorded_at
        """

    /// Who holds a ledger, and for how many more milliseconds. `$1` ledger.
    static let leaseHolder = """
        SELECT owner, (EXTRACT(EPOCH FROM (lease_until - now())) * 1000)::bigint FROM tally_ledgers WHERE ledger = $1
        """

    /// Keeps a lease while the epoch is still the holder's. `$1` ledger, `$2` epoch, `$3` seconds.
    static let renewLease = """
        UPDATE tally_ledgers SET lease_until = now() + make_interval(secs => $3) WHERE ledger = $1 AND epoch = $2
        """

    /// Gives a lease up. `$1` ledger, `$2` epoch.
    static let releaseLease = """
        UPDATE tally_ledgers SET owner = NULL, lease_until = NULL WHERE ledger = $1 AND epoch = $2
        """

    /// The append: a compare-and-set on the head (expected sequence and hash, the writer's epoch)
    /// and the frame's row, in one statement. One row inserted: committed. None: another writer
    /// got there first or took the ledger over.
    /// `$1` ledger, `$2` expected head sequence, `$3` expected head hash, `$4` new head sequence,
    /// `$5` new head hash, `$6` recorded-at maximum, `$7` epoch, `$8` recorded-at minimum, `$9` frame.
    static let append = """
        WITH moved AS (
            UPDATE tally_ledgers SET head_sequence = $4, head_hash = $5, last_recorded_at = $6
            WHERE ledger = $1 AND head_sequence = $2 AND head_hash = $3 AND epoch = $7
            RETURNING ledger)
        INSERT INTO tally_frames (ledger, first_sequence, last_sequence, recorded_at_min, recorded_at_max, last_hash, frame)
        SELECT ledger, $2 + 1, $4, $8, $6, $5, $9 FROM moved
        """

    /// A ledger's head. `$1` ledger.
    static let head = """
        SELECT head_sequence, head_hash, last_recorded_at, epoch FROM tally_ledgers WHERE ledger = $1
        """
}

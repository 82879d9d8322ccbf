//! The station's database: SQLite (a file, the library compiled in, no
//! server) by default, PostgreSQL when given a `postgres://` or
//! `postgresql://` URL, for a station several operators share. Both run the
//! same SQL (parameters written `$1`, `$2`, …); the schema is migrated by
//! refinery from `migrations/sqlite` or `migrations/postgres`. On PostgreSQL
//! the epoch tables are partitioned by day of the epoch's start, and the
//! station creates a day's partition with its first row.

use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use std::collections::{HashMap, HashSet};

mod sqlite_schema {
    refinery::embed_migrations!("migrations/sqlite");
}
mod postgres_schema {
    refinery::embed_migrations!("migrations/postgres");
}

/// Nanoseconds in a day: the width of a PostgreSQL partition.
pub const DAY_NS: i64 = 86_400_000_000_000;

/// The tables partitioned by day on PostgreSQL.
pub const PARTITIONED: &[&str] = &["synopsis", "latency", "bandwidth", "dbm_partition", "packet_diff", "delay_hist"];

/// One SQL value, as the station stores them.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// An integer (BIGINT).
    Int(i64),
    /// A float (DOUBLE PRECISION).
    Real(f64),
    /// Text.
    Text(String),
    /// NULL.
    Null,
}

impl Val {
    /// The integer, or an error naming `what`.
    pub fn int(&self, what: &str) -> Result<i64, String> {
        match self {
            Val::Int(v) => Ok(*v),
            other => Err(format!("database: {what} is {other:?}, not an integer")),
        }
    }

    /// The float (an integer is widened; NULL is NaN, as the estimators write a missing value).
    pub fn real(&self, what: &str) -> Result<f64, String> {
        match self {
            Val::Real(v) => Ok(*v),
            Val::Int(v) => Ok(*v as f64),
            Val::Null => Ok(f64::NAN),
            other => Err(format!("database: {what} is {other:?}, not a number")),
        }
    }

    /// The text, or None for NULL.
    pub fn text(&self, what: &str) -> Result<Option<String>, String> {
        match self {
            Val::Text(s) => Ok(Some(s.clone())),
            Val::Null => Ok(None),
            other => Err(format!("database: {what} is {other:?}, not text")),
        }
    }
}

impl From<i64> for Val {
    fn from(v: i64) -> Self {
        Val::Int(v)
    }
}
impl From<f64> for Val {
    fn from(v: f64) -> Self {
        // NaN (an estimate without samples) is stored as NULL: SQL has no NaN that both databases read back.
        if v.is_nan() { Val::Null } else { Val::Real(v) }
    }
}
impl From<&str> for Val {
    fn from(v: &str) -> Self {
        Val::Text(v.to_string())
    }
}
impl From<String> for Val {
    fn from(v: String) -> Self {
        Val::Text(v)
    }
}
impl<T: Into<Val>> From<Option<T>> for Val {
    fn from(v: Option<T>) -> Self {
        v.map_or(Val::Null, Into::into)
    }
}

impl ToSql for Val {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match (self, ty) {
            (Val::Null, _) => Ok(IsNull::Yes),
            (Val::Int(v), &Type::INT4) => i32::try_from(*v)?.to_sql(ty, out),
            (Val::Int(v), &Type::FLOAT8) => (*v as f64).to_sql(ty, out),
            (Val::Int(v), _) => v.to_sql(ty, out),
            (Val::Real(v), _) => v.to_sql(ty, out),
            (Val::Text(v), _) => v.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        matches!(*ty, Type::INT8 | Type::INT4 | Type::FLOAT8 | Type::TEXT | Type::VARCHAR | Type::NAME)
    }

    to_sql_checked!();
}

/// Which database a [`Db`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// SQLite, a file.
    Sqlite,
    /// PostgreSQL, a server.
    Postgres,
}

/// What opening a database may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Create the SQLite file if missing and migrate the schema (ingest).
    Write,
    /// Read an existing database at this version's schema (queries).
    Read,
}

/// A connection to the station's database.
pub enum Db {
    /// SQLite.
    Sqlite(rusqlite::Connection),
    /// PostgreSQL, with the day partitions known to exist.
    Postgres {
        /// The client.
        client: postgres::Client,
        /// Partitions created or seen, as (table, day).
        partitions: HashSet<(&'static str, i64)>,
        /// Partitions created by the open transaction (known once it commits).
        pending: Vec<(&'static str, i64)>,
        /// Statements prepared on this connection, by their SQL.
        statements: HashMap<String, postgres::Statement>,
        /// A savepoint whose work succeeded is still open: it is released
        /// with the next savepoint's creation or the commit, so that a
        /// savepoint costs one round trip to the server, not two.
        savepoint_open: bool,
    },
}

/// How long a write waits for another writer's lock before it fails.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs `attempt` until it succeeds, fails for good (`again` says no), or
/// [`BUSY_TIMEOUT`] has passed, `pause` between tries: how the station
/// waits on another writer where the database itself does not.
fn while_busy<T, E>(
    pause: std::time::Duration,
    mut attempt: impl FnMut() -> Result<T, E>,
    again: impl Fn(&E) -> bool,
) -> Result<T, E> {
    let until = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match attempt() {
            Err(e) if again(&e) && std::time::Instant::now() < until => std::thread::sleep(pause),
            r => return r,
        }
    }
}

/// Puts an SQLite database in write-ahead-log mode, unless it is already
/// (the mode is the file's: set once, by the first writer). Switching
/// takes the file alone, and SQLite answers busy at once rather than wait
/// while another connection holds it (two station processes opening a new
/// database together): tried again while busy.
fn wal(conn: &rusqlite::Connection) -> Result<(), rusqlite::Error> {
    let set = || match conn.pragma_query_value(None, "journal_mode", |r| r.get::<_, String>(0))? {
        m if m.eq_ignore_ascii_case("wal") => Ok(()),
        _ => conn.pragma_update(None, "journal_mode", "WAL"),
    };
    let busy = |e: &rusqlite::Error| {
        matches!(e, rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
    };
    while_busy(std::time::Duration::from_millis(10), set, busy)
}

/// Whether `target` names a PostgreSQL server rather than an SQLite file.
pub fn is_postgres(target: &str) -> bool {
    target.starts_with("postgres://") || target.starts_with("postgresql://")
}

impl Db {
    /// Opens `target` (an SQLite path or a PostgreSQL URL). With
    /// [`Access::Write`] a missing SQLite file is created and the schema is
    /// migrated to this version's; with [`Access::Read`] the database must
    /// exist at this version's schema. A database written by a newer netmeas
    /// is refused either way.
    pub fn open(target: &str, access: Access) -> Result<Db, String> {
        let mut db = if is_postgres(target) {
            let client = postgres::Client::connect(target, postgres::NoTls)
                .map_err(|e| format!("cannot connect to the station database {}: {}", redact(target), pg_error(&e)))?;
            Db::Postgres {
                client,
                partitions: HashSet::new(),
                pending: Vec::new(),
                statements: HashMap::new(),
                savepoint_open: false,
            }
        } else {
            use rusqlite::OpenFlags;
            let flags = match access {
                Access::Write => OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
                Access::Read => OpenFlags::SQLITE_OPEN_READ_ONLY,
            } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            if access == Access::Read && !std::path::Path::new(target).is_file() {
                return Err(format!(
                    "no station database at {target}: ingest an epoch first (`netmeas station ingest`)"
                ));
            }
            let conn = rusqlite::Connection::open_with_flags(target, flags)
                .map_err(|e| format!("cannot open the station database {target}: {e}"))?;
            conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| format!("station database {target}: {e}"))?;
            if access == Access::Write {
                // Write-ahead log: readers (queries, the dashboard) never block the ingest.
                wal(&conn).map_err(|e| format!("cannot write the station database {target}: {e}"))?;
                conn.pragma_update(None, "synchronous", "NORMAL")
                    .map_err(|e| format!("station database {target}: {e}"))?;
            }
            conn.pragma_update(None, "foreign_keys", "ON").map_err(|e| format!("station database {target}: {e}"))?;
            Db::Sqlite(conn)
        };
        db.schema(access).map_err(|e| format!("station database {}: {e}", redact(target)))?;
        Ok(db)
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        match self {
            Db::Sqlite(_) => Backend::Sqlite,
            Db::Postgres { .. } => Backend::Postgres,
        }
    }

    /// The newest schema version this netmeas knows.
    pub fn known_version(&self) -> i64 {
        let migrations = match self {
            Db::Sqlite(_) => sqlite_schema::migrations::runner().get_migrations().clone(),
            Db::Postgres { .. } => postgres_schema::migrations::runner().get_migrations().clone(),
        };
        migrations.iter().map(|m| i64::from(m.version())).max().unwrap_or(0)
    }

    /// The schema version the database is at (0: empty).
    pub fn version(&mut self) -> Result<i64, String> {
        // Twice at most: another station process may create the history
        // table between the first read and the look for the table.
        for again in [false, true] {
            let last = match self {
                Db::Sqlite(c) => sqlite_schema::migrations::runner().get_last_applied_migration(c),
                Db::Postgres { client, .. } => postgres_schema::migrations::runner().get_last_applied_migration(client),
            };
            match last {
                Ok(m) => return Ok(m.map_or(0, |m| i64::from(m.version()))),
                // A database refinery has never touched has no history table.
                Err(_) if !self.has_table("refinery_schema_history")? => return Ok(0),
                Err(e) if again => return Err(format!("cannot read the schema version: {e}")),
                Err(_) => {}
            }
        }
        unreachable!("the second pass returns")
    }

    fn has_table(&mut self, name: &str) -> Result<bool, String> {
        let sql = match self {
            Db::Sqlite(_) => "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
            Db::Postgres { .. } => "SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE tablename = $1",
        };
        Ok(self.query(sql, &[name.into()])?[0][0].int("count")? > 0)
    }

    /// Checks the schema, and migrates it when writing.
    fn schema(&mut self, access: Access) -> Result<(), String> {
        let (have, know) = (self.version()?, self.known_version());
        if have > know {
            return Err(format!(
                "its schema is version {have}, written by a newer netmeas (this one knows up to {know}); \
                 use that netmeas or a new database"
            ));
        }
        if have == know {
            return Ok(());
        }
        if access == Access::Read {
            return Err(if have == 0 {
                "it holds no station (no schema): ingest an epoch first (`netmeas station ingest`)".into()
            } else {
                format!(
                    "its schema is version {have}, older than this netmeas's {know}: \
                     `netmeas station migrate` brings it up to date"
                )
            });
        }
        // All migrations in one transaction: a database is at a version
        // this netmeas knows, or at the one before, never in between.
        let report = match self {
            Db::Sqlite(c) => sqlite_schema::migrations::runner().set_grouped(true).run(c).map_err(|e| e.to_string()),
            Db::Postgres { client, .. } => {
                postgres_schema::migrations::runner().set_grouped(true).run(client).map_err(|e| e.to_string())
            }
        };
        let Err(e) = report else { return Ok(()) };
        // Another station process (a second reader starting on a new
        // database) may be migrating it at the same time: its migration is
        // one transaction, so the version goes to this one's at once when
        // it commits. Waited for as for another writer's lock.
        let migrated = || if self.version().is_ok_and(|v| v == know) { Ok(()) } else { Err(()) };
        while_busy(std::time::Duration::from_millis(20), migrated, |_| true)
            .map_err(|_| format!("cannot migrate the schema from version {have} to {know}: {e}"))
    }

    /// Runs one statement; the rows it changed.
    pub fn execute(&mut self, sql: &str, params: &[Val]) -> Result<u64, String> {
        match self {
            Db::Sqlite(c) => {
                let mut stmt = c.prepare_cached(&sqlite_params(sql)).map_err(|e| sqlite_error(&e))?;
                stmt.execute(rusqlite::params_from_iter(params.iter().map(sqlite_value)))
                    .map(|n| n as u64)
                    .map_err(|e| sqlite_error(&e))
            }
            Db::Postgres { client, statements, .. } => {
                let stmt = pg_statement(client, statements, sql)?;
                let p: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
                client.execute(&stmt, &p).map_err(|e| pg_error(&e))
            }
        }
    }

    /// Runs one query; its rows, each a vector of values.
    pub fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>, String> {
        match self {
            Db::Sqlite(c) => {
                let sql = sqlite_params(sql);
                let mut stmt = c.prepare_cached(&sql).map_err(|e| sqlite_error(&e))?;
                let n = stmt.column_count();
                let rows = stmt
                    .query_map(rusqlite::params_from_iter(params.iter().map(sqlite_value)), |row| {
                        (0..n)
                            .map(|i| {
                                Ok(match row.get_ref(i)? {
                                    rusqlite::types::ValueRef::Integer(v) => Val::Int(v),
                                    rusqlite::types::ValueRef::Real(v) => Val::Real(v),
                                    rusqlite::types::ValueRef::Text(t) => {
                                        Val::Text(String::from_utf8_lossy(t).into_owned())
                                    }
                                    rusqlite::types::ValueRef::Null => Val::Null,
                                    rusqlite::types::ValueRef::Blob(_) => Val::Null,
                                })
                            })
                            .collect::<Result<Vec<Val>, rusqlite::Error>>()
                    })
                    .map_err(|e| sqlite_error(&e))?;
                rows.collect::<Result<Vec<_>, _>>().map_err(|e| sqlite_error(&e))
            }
            Db::Postgres { client, statements, .. } => {
                let stmt = pg_statement(client, statements, sql)?;
                let p: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
                let rows = client.query(&stmt, &p).map_err(|e| pg_error(&e))?;
                rows.iter()
                    .map(|row| {
                        (0..row.len())
                            .map(|i| {
                                let ty = row.columns()[i].type_().clone();
                                let get = |r: Result<Option<Val>, postgres::Error>| {
                                    r.map(|v| v.unwrap_or(Val::Null)).map_err(|e| pg_error(&e))
                                };
                                match ty {
                                    Type::INT8 => get(row.try_get::<_, Option<i64>>(i).map(|v| v.map(Val::Int))),
                                    Type::INT4 => {
                                        get(row.try_get::<_, Option<i32>>(i).map(|v| v.map(|v| Val::Int(v.into()))))
                                    }
                                    Type::FLOAT8 => get(row.try_get::<_, Option<f64>>(i).map(|v| v.map(Val::Real))),
                                    Type::TEXT | Type::VARCHAR | Type::NAME => {
                                        get(row.try_get::<_, Option<String>>(i).map(|v| v.map(Val::Text)))
                                    }
                                    other => Err(format!(
                                        "database: column {i} has type {other}, which the station does not read"
                                    )),
                                }
                            })
                            .collect()
                    })
                    .collect()
            }
        }
    }

    /// Runs `f` in one transaction: everything it wrote, or (on an error, or
    /// if the process dies first) nothing.
    pub fn transaction<T>(&mut self, f: impl FnOnce(&mut Db) -> Result<T, String>) -> Result<T, String> {
        let begin = match self {
            // IMMEDIATE: take the write lock first, so two ingesters queue instead of failing at commit.
            Db::Sqlite(_) => "BEGIN IMMEDIATE",
            Db::Postgres { .. } => "BEGIN",
        };
        self.batch(begin)?;
        let done = f(self);
        // The commit releases a savepoint left open; the rollback drops it.
        if let Db::Postgres { savepoint_open, .. } = self {
            *savepoint_open = false;
        }
        match done {
            Ok(v) => {
                self.batch("COMMIT")?;
                if let Db::Postgres { partitions, pending, .. } = self {
                    partitions.extend(pending.drain(..));
                }
                Ok(v)
            }
            Err(e) => {
                let _ = self.batch("ROLLBACK");
                if let Db::Postgres { pending, .. } = self {
                    pending.clear();
                }
                Err(e)
            }
        }
    }

    /// Runs `f` inside the open transaction so that, on an error, what it
    /// wrote is undone and the transaction goes on (a savepoint): one
    /// refused epoch of a batch does not cost the others.
    pub fn savepoint<T>(&mut self, f: impl FnOnce(&mut Db) -> Result<T, String>) -> Result<T, String> {
        let begin = match self {
            Db::Postgres { savepoint_open: open @ true, .. } => {
                *open = false;
                "RELEASE SAVEPOINT epoch; SAVEPOINT epoch"
            }
            _ => "SAVEPOINT epoch",
        };
        self.batch(begin)?;
        let created = match self {
            Db::Postgres { pending, .. } => pending.len(),
            Db::Sqlite(_) => 0,
        };
        match f(self) {
            Ok(v) => {
                match self {
                    Db::Postgres { savepoint_open, .. } => *savepoint_open = true,
                    Db::Sqlite(_) => self.batch("RELEASE SAVEPOINT epoch")?,
                }
                Ok(v)
            }
            Err(e) => {
                self.batch("ROLLBACK TO SAVEPOINT epoch; RELEASE SAVEPOINT epoch")?;
                // Partitions created after the savepoint are gone with it.
                if let Db::Postgres { pending, .. } = self {
                    pending.truncate(created);
                }
                Err(e)
            }
        }
    }

    fn batch(&mut self, sql: &str) -> Result<(), String> {
        match self {
            Db::Sqlite(c) => c.execute_batch(sql).map_err(|e| sqlite_error(&e)),
            Db::Postgres { client, .. } => client.batch_execute(sql).map_err(|e| pg_error(&e)),
        }
    }

    /// Makes sure `table` can take a row of time `t_ns`: on PostgreSQL, the
    /// day's partition exists (created in the open transaction if not; with
    /// several connections writing, create it first with
    /// [`Self::ensure_partitions`]).
    pub fn partition_for(&mut self, table: &'static str, t_ns: i64) -> Result<(), String> {
        let Db::Postgres { client, partitions, pending, .. } = self else { return Ok(()) };
        let day = t_ns.div_euclid(DAY_NS);
        if partitions.contains(&(table, day)) || pending.contains(&(table, day)) {
            return Ok(());
        }
        let (lo, hi) = (day * DAY_NS, (day + 1) * DAY_NS);
        let name = partition_name(table, day);
        // Connections that create the same partition at once take turns (a
        // lock held to the end of the transaction): the later one finds it.
        client
            .batch_execute(&format!(
                "SELECT pg_advisory_xact_lock(hashtext('{name}')); \
                 CREATE TABLE IF NOT EXISTS {name} PARTITION OF {table} FOR VALUES FROM ({lo}) TO ({hi})"
            ))
            .map_err(|e| pg_error(&e))?;
        pending.push((table, day));
        Ok(())
    }

    /// Makes sure every partitioned table has a partition for each day of
    /// `t_ns` (PostgreSQL; nothing on SQLite), each created in a short
    /// transaction of its own, outside any other: call it before the
    /// transaction that writes the rows. A partition is attached under an
    /// exclusive lock on its table, which waits for every transaction that
    /// read the table; created inside an ingest transaction (that read it
    /// too), two connections would wait on each other. A partition that
    /// cannot be made here is left to the write that needs it, which then
    /// fails with the database's reason (and only that write's epoch).
    pub fn ensure_partitions(&mut self, t_ns: impl IntoIterator<Item = i64>) {
        for (table, day) in self.missing_partitions(t_ns) {
            let _ = self.transaction(|db| db.partition_for(table, day * DAY_NS));
        }
    }

    /// The partitions (table, day) that rows of times `t_ns` would need and
    /// this connection does not know to exist (none on SQLite).
    pub fn missing_partitions(&self, t_ns: impl IntoIterator<Item = i64>) -> Vec<(&'static str, i64)> {
        let Db::Postgres { partitions, .. } = self else { return Vec::new() };
        let mut days: Vec<i64> = t_ns.into_iter().map(|t| t.div_euclid(DAY_NS)).collect();
        days.sort_unstable();
        days.dedup();
        days.iter()
            .flat_map(|&d| PARTITIONED.iter().map(move |&t| (t, d)))
            .filter(|k| !partitions.contains(k))
            .collect()
    }

    /// Drops `table`'s partition of `day` with its rows, in the open
    /// transaction (PostgreSQL; nothing on SQLite, whose tables are whole).
    pub fn drop_partition(&mut self, table: &'static str, day: i64) -> Result<(), String> {
        let Db::Postgres { client, partitions, .. } = self else { return Ok(()) };
        client.batch_execute(&format!("DROP TABLE {}", partition_name(table, day))).map_err(|e| pg_error(&e))?;
        partitions.remove(&(table, day));
        Ok(())
    }
}

/// The day (days since 1970-01-01, UTC) of `table`'s partition `name`, if it is one.
pub fn partition_day(table: &str, name: &str) -> Option<i64> {
    let rest = name.strip_prefix(table)?.strip_prefix("_d")?;
    let day = match rest.strip_prefix('m') {
        Some(neg) => -neg.parse::<i64>().ok()?,
        None => rest.parse::<i64>().ok()?,
    };
    (partition_name(table, day) == name).then_some(day)
}

/// The PostgreSQL partition of `table` for `day` (days since 1970-01-01, UTC).
pub fn partition_name(table: &str, day: i64) -> String {
    if day < 0 { format!("{table}_dm{}", -day) } else { format!("{table}_d{day}") }
}

/// `$1`-style parameters as SQLite's numbered `?1`.
fn sqlite_params(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            out.push('?');
        } else {
            out.push(c);
        }
    }
    out
}

fn sqlite_value(v: &Val) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match v {
        Val::Int(i) => Value::Integer(*i),
        Val::Real(f) => Value::Real(*f),
        Val::Text(s) => Value::Text(s.clone()),
        Val::Null => Value::Null,
    }
}

fn sqlite_error(e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            format!("the database is locked by another writer (waited {} s): {e}", BUSY_TIMEOUT.as_secs())
        }
        Some(rusqlite::ErrorCode::ReadOnly) => format!("the database is read-only: {e}"),
        Some(rusqlite::ErrorCode::DiskFull) => format!("the disk is full: {e}"),
        _ => e.to_string(),
    }
}

/// The prepared statement of `sql` on this connection (prepared once).
fn pg_statement(
    client: &mut postgres::Client,
    statements: &mut HashMap<String, postgres::Statement>,
    sql: &str,
) -> Result<postgres::Statement, String> {
    if let Some(s) = statements.get(sql) {
        return Ok(s.clone());
    }
    let s = client.prepare(sql).map_err(|e| pg_error(&e))?;
    statements.insert(sql.to_string(), s.clone());
    Ok(s)
}

/// A PostgreSQL error with the server's message when there is one.
fn pg_error(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => format!("{}: {}", d.severity(), d.message()),
        None => match std::error::Error::source(e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        },
    }
}

/// A connection URL without its password, for messages.
pub fn redact(target: &str) -> String {
    if !is_postgres(target) {
        return target.to_string();
    }
    match (target.find("://"), target.find('@')) {
        (Some(s), Some(at)) if at > s => {
            let userinfo = &target[s + 3..at];
            match userinfo.find(':') {
                Some(colon) => format!("{}{}:***{}", &target[..s + 3], &userinfo[..colon], &target[at..]),
                None => target.to_string(),
            }
        }
        _ => target.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_become_sqlite_numbers() {
        assert_eq!(sqlite_params("SELECT $1, $12 FROM t WHERE a = '$x'"), "SELECT ?1, ?12 FROM t WHERE a = '$x'");
    }

    #[test]
    fn passwords_are_not_printed() {
        assert_eq!(redact("postgresql://op:secret@db:5432/st"), "postgresql://op:***@db:5432/st");
        assert_eq!(redact("postgresql://op@db/st"), "postgresql://op@db/st");
        assert_eq!(redact("station.sqlite"), "station.sqlite");
    }

    #[test]
    fn partitions_are_named_by_day() {
        assert_eq!(partition_name("synopsis", 20_425), "synopsis_d20425");
        assert_eq!(partition_name("latency", -1), "latency_dm1");
        for (table, day) in [("synopsis", 20_425), ("latency", -1), ("synopsis", 0)] {
            assert_eq!(partition_day(table, &partition_name(table, day)), Some(day));
        }
        for name in ["synopsis", "synopsis_d", "synopsis_d01", "synopsis_dm0x", "latency_d3", "synopsis_dx"] {
            assert_eq!(partition_day("synopsis", name), None, "{name}");
        }
    }
}

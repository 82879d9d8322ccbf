//! The station's dashboard over HTTP: one page (`web/dashboard.html`) and
//! the read-only queries it plots, as JSON. The bandwidth paper's log server
//! is "monitored and visualized by administrators" (§1, Figure 1); this is
//! that view: the points and their health, a segment's latency (LDA §III-D/E)
//! and a link's bandwidth at a chosen scale over time, and the burst table.
//!
//! Only `GET` of these paths is served; the database is opened read-only.
//!
//! | path | answer |
//! |---|---|
//! | `/` | the page |
//! | `/api/points` | the points' health and the segments |
//! | `/api/latency?segment=S[&from=T&to=T]` | [`query::latency`] |
//! | `/api/bandwidth?point=P&scale=1ms[&from=T&to=T]` | [`query::bandwidth`] |
//! | `/api/bursts?scale=1ms&rate=R[&links=A,B][&from=T&to=T]` | [`query::bursts`] |
//! | `/api/packets?segment=S[&from=T&to=T]` | [`query::packets`] |
//! | `/api/delays?point=P[&quantiles=0.5,0.99][&from=T&to=T]` | [`query::delays`] |

use crate::config::{parse_duration_ns, parse_window};
use crate::db::{Access, Db};
use crate::query;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;

/// The address the dashboard binds to unless told otherwise: loopback only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

const PAGE: &str = include_str!("../web/dashboard.html");

/// Serves the dashboard of the station database `target` on `addr` until
/// the process ends; `ready` is told the bound address (`addr` may ask for
/// port 0). A missing or unreadable database is an error before binding.
pub fn serve(target: &str, addr: &str, ready: impl FnOnce(SocketAddr)) -> Result<(), String> {
    let mut db = Db::open(target, Access::Read)?;
    let server = tiny_http::Server::http(addr).map_err(|e| format!("cannot serve on {addr}: {e}"))?;
    let bound = server.server_addr().to_ip().ok_or_else(|| format!("{addr} is not an IP address and port"))?;
    ready(bound);
    for request in server.incoming_requests() {
        let (status, content_type, body) = answer(&mut db, request.method(), request.url());
        let header = tiny_http::Header::from_bytes("Content-Type", content_type).expect("a valid header");
        let response = tiny_http::Response::from_string(body).with_status_code(status).with_header(header);
        // A client that went away is its own business.
        let _ = request.respond(response);
    }
    Ok(())
}

/// The status, content type and body for one request.
fn answer(db: &mut Db, method: &tiny_http::Method, url: &str) -> (u16, &'static str, String) {
    const JSON: &str = "application/json";
    if *method != tiny_http::Method::Get {
        return (405, JSON, json!({ "error": "only GET is served" }).to_string());
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let args: HashMap<String, String> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let result = match path {
        "/" => return (200, "text/html; charset=utf-8", PAGE.to_string()),
        "/api/points" => points(db),
        "/api/latency" => latency(db, &args),
        "/api/bandwidth" => bandwidth(db, &args),
        "/api/bursts" => bursts(db, &args),
        "/api/packets" => packets(db, &args),
        "/api/delays" => delays(db, &args),
        _ => return (404, JSON, json!({ "error": format!("no such page: {path}") }).to_string()),
    };
    match result {
        Ok(v) => (200, JSON, v.to_string()),
        Err(e) => (400, JSON, json!({ "error": e }).to_string()),
    }
}

fn arg<'a>(args: &'a HashMap<String, String>, name: &str) -> Result<&'a str, String> {
    args.get(name).map(String::as_str).ok_or_else(|| format!("missing `{name}`"))
}

/// `from`/`to` as a window of epoch starts (the whole archive by default).
fn window(args: &HashMap<String, String>) -> Result<(i64, i64), String> {
    parse_window(args.get("from").map(String::as_str), args.get("to").map(String::as_str), ["`from`", "`to`"])
}

/// A time scale argument (`1ms`, `100us`) in ns.
fn scale(args: &HashMap<String, String>) -> Result<i64, String> {
    let text = arg(args, "scale")?;
    parse_duration_ns(text).map_err(|e| format!("scale {text:?}: {e}"))
}

fn points(db: &mut Db) -> Result<Value, String> {
    let segments = db.query("SELECT name FROM segment ORDER BY name", &[])?;
    let segments: Vec<String> =
        segments.iter().map(|r| r[0].text("name").map(Option::unwrap_or_default)).collect::<Result<_, _>>()?;
    Ok(json!({ "points": query::points(db)?, "segments": segments }))
}

fn latency(db: &mut Db, args: &HashMap<String, String>) -> Result<Value, String> {
    let (from, to) = window(args)?;
    let segment = arg(args, "segment")?;
    Ok(json!({ "segment": segment, "epochs": query::latency(db, segment, from, to)? }))
}

fn bandwidth(db: &mut Db, args: &HashMap<String, String>) -> Result<Value, String> {
    let (from, to) = window(args)?;
    let point = arg(args, "point")?;
    Ok(json!({ "point": point, "rows": query::bandwidth(db, point, scale(args)?, from, to)? }))
}

fn bursts(db: &mut Db, args: &HashMap<String, String>) -> Result<Value, String> {
    let (from, to) = window(args)?;
    let rate: f64 = arg(args, "rate")?.parse().map_err(|_| "`rate` is not a number of bits/s".to_string())?;
    let links: Vec<String> = args
        .get("links")
        .map(|l| l.split(',').filter(|s| !s.is_empty()).map(String::from).collect())
        .unwrap_or_default();
    Ok(json!({ "bursts": query::bursts(db, &links, scale(args)?, rate, from, to)? }))
}

fn packets(db: &mut Db, args: &HashMap<String, String>) -> Result<Value, String> {
    let (from, to) = window(args)?;
    let segment = arg(args, "segment")?;
    Ok(json!({ "segment": segment, "epochs": query::packets(db, segment, from, to)? }))
}

fn delays(db: &mut Db, args: &HashMap<String, String>) -> Result<Value, String> {
    let (from, to) = window(args)?;
    let point = arg(args, "point")?;
    let quantiles: Vec<f64> = match args.get("quantiles") {
        None => vec![0.5, 0.95, 0.99],
        Some(q) => q
            .split(',')
            .map(|x| x.trim().parse().map_err(|_| format!("quantile `{x}` is not a number")))
            .collect::<Result<_, String>>()?,
    };
    Ok(json!({ "point": point, "quantiles": quantiles, "epochs": query::delays(db, point, &quantiles, from, to)? }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_get_of_known_paths_is_answered() {
        let dir = std::env::temp_dir().join(format!("netmeas-http-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("st.sqlite");
        let _ = std::fs::remove_file(&target);
        drop(Db::open(target.to_str().unwrap(), Access::Write).unwrap());
        let mut db = Db::open(target.to_str().unwrap(), Access::Read).unwrap();
        let get = tiny_http::Method::Get;
        assert_eq!(answer(&mut db, &tiny_http::Method::Post, "/api/points").0, 405);
        for path in ["/etc/passwd", "/../station.sqlite", "/api", "/api/points/x", "/dashboard.html"] {
            assert_eq!(answer(&mut db, &get, path).0, 404, "{path}");
        }
        let (status, kind, page) = answer(&mut db, &get, "/");
        assert_eq!((status, kind), (200, "text/html; charset=utf-8"));
        assert!(page.contains("<svg") || page.contains("createElementNS"));
        assert_eq!(answer(&mut db, &get, "/api/points").1, "application/json");
        for (url, why) in [
            ("/api/latency", "missing `segment`"),
            ("/api/latency?segment=l9", "no segment `l9`"),
            ("/api/latency?segment=l9&from=noon", "not a time like"),
            ("/api/bandwidth?point=p&scale=soon", "not a duration"),
            ("/api/bursts?scale=1ms&rate=fast", "not a number"),
            ("/api/packets?segment=l9", "no segment `l9`"),
            ("/api/delays", "missing `point`"),
            ("/api/delays?point=p&quantiles=0.5,x", "quantile `x` is not a number"),
            ("/api/delays?point=p&quantiles=2", "quantiles are between 0 and 1"),
        ] {
            let (status, _, body) = answer(&mut db, &get, url);
            assert_eq!(status, 400, "{url}");
            assert!(body.contains(why), "{url}: {body}");
        }
    }
}

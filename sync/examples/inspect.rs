fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap();
        let r = nocturne_sync::engine::Replica::load(5, &bytes).unwrap();
        println!("{path}: header={:?}", r.header().map(|h| (h.salt, h.kdf)));
        for (k, v) in r.records() {
            println!("  {k} {} bytes", v.len());
        }
    }
}

//! Exports the module's shadow-stack pointer (the `__stack_pointer` global) so the package's
//! JavaScript can put it back when an exception thrown by JavaScript code (a getter, a setter)
//! unwinds through the module's frames, which never run their epilogues to restore it.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo::rustc-link-arg-cdylib=--export=__stack_pointer");
    }
}

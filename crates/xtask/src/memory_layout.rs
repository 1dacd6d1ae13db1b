//! Where a built module puts its stack and its data, read from the binary with wasmparser, and
//! the check that wasm-opt's `--low-memory-unused` (see `npm::SIZE_PASSES`) is safe for it.

use wasmparser::{DataKind, Operator, Parser, Payload, ValType};

use crate::Result;

/// Below this address a module keeps nothing but the far end of its stack: wasm-opt's
/// `--low-memory-unused` assumes the first kilobyte.
const LOW_MEMORY: u64 = 1024;

/// Where Rust's linker starts the stack by default (it grows down to address 0).
const STACK: u64 = 1 << 20;

/// Checks that `wasm` places no data below [`LOW_MEMORY`] and that its stack pointer (its first
/// global, as Rust's linker lays it out) starts at [`STACK`] or above, so that only a stack
/// nearly 1 MiB deep reaches the low kilobyte.
pub fn check_low_memory_unused(wasm: &[u8]) -> Result {
    let layout = memory_layout(wasm)?;
    if let Some(&(at, len)) = layout.data.iter().find(|&&(at, _)| at < LOW_MEMORY) {
        return Err(format!(
            "a data segment of {len} bytes lies at address {at}, in the low kilobyte that \
             wasm-opt --low-memory-unused assumes unused"
        ));
    }
    match layout.stack_pointer {
        Some(sp) if sp >= STACK => Ok(()),
        sp => Err(format!(
            "the stack starts at {sp:?}, below {STACK}: a shallower call chain reaches the low \
             kilobyte that wasm-opt --low-memory-unused assumes unused"
        )),
    }
}

/// What a module puts in memory before it runs.
#[derive(Debug, PartialEq)]
pub struct MemoryLayout {
    /// Each active data segment's address and length, in any memory.
    pub data: Vec<(u64, u64)>,
    /// The initial value of the first global, if it is a mutable i32 set by a constant.
    pub stack_pointer: Option<u64>,
}

/// Reads the global and data sections of a WebAssembly module (not a component).
pub fn memory_layout(wasm: &[u8]) -> Result<MemoryLayout> {
    let err = |e: wasmparser::BinaryReaderError| format!("reading the module: {e}");
    let mut layout = MemoryLayout {
        data: Vec::new(),
        stack_pointer: None,
    };
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.map_err(err)? {
            Payload::Version { encoding, .. } if encoding != wasmparser::Encoding::Module => {
                return Err("not a WebAssembly module".into());
            }
            Payload::GlobalSection(globals) => {
                let Some(first) = globals.into_iter().next() else {
                    continue;
                };
                let first = first.map_err(err)?;
                if first.ty.content_type == ValType::I32 && first.ty.mutable {
                    layout.stack_pointer = i32_constant(&first.init_expr);
                }
            }
            Payload::DataSection(segments) => {
                for segment in segments {
                    let segment = segment.map_err(err)?;
                    if let DataKind::Active { offset_expr, .. } = segment.kind {
                        let at = i32_constant(&offset_expr)
                            .ok_or("a data segment's address is not a constant")?;
                        layout.data.push((at, segment.data.len() as u64));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(layout)
}

/// The address an expression of exactly `i32.const N` gives: N read as unsigned, as memory
/// addresses are (`i32.const -16` is 16 bytes below 4 GiB).
fn i32_constant(expr: &wasmparser::ConstExpr<'_>) -> Option<u64> {
    let mut ops = expr.get_operators_reader();
    match (ops.read().ok()?, ops.read().ok()?, ops.eof()) {
        (Operator::I32Const { value }, Operator::End, true) => Some(u64::from(value as u32)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module with `sections` (id and contents) after the header, written byte by byte so a
    /// test can also cut it short.
    fn module(sections: &[(u8, &[u8])]) -> Vec<u8> {
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        for (id, body) in sections {
            m.push(*id);
            m.push(body.len() as u8);
            m.extend_from_slice(body);
        }
        m
    }

    /// `wasm` has its stack pointer at 1 MiB and exactly `data`, and passes the check.
    fn assert_laid_out_at_1_mib(wasm: &[u8], data: &[(u64, u64)]) {
        let want = MemoryLayout {
            data: data.to_vec(),
            stack_pointer: Some(1_048_576),
        };
        assert_eq!(memory_layout(wasm).unwrap(), want);
        assert_eq!(check_low_memory_unused(wasm), Ok(()));
    }

    #[test]
    fn memory_layout_reads_the_stack_pointer_and_data_segments() {
        // Global 0: mutable i32 = 1048576 (sleb 0x80 0x80 0xc0 0x00); data: one active segment
        // of 3 bytes at 1048576, one passive of 1 byte, one for memory 0 by index at 2000.
        let globals = [1, 0x7f, 1, 0x41, 0x80, 0x80, 0xc0, 0x00, 0x0b];
        let data = [
            3, 0, 0x41, 0x80, 0x80, 0xc0, 0x00, 0x0b, 3, 1, 2, 3, 1, 1, 9, 2, 0, 0x41, 0xd0, 0x0f,
            0x0b, 0, // the last segment is empty
        ];
        let m = module(&[(1, &[0]), (6, &globals), (11, &data)]);
        assert_laid_out_at_1_mib(&m, &[(1_048_576, 3), (2000, 0)]);
    }

    #[test]
    fn low_memory_in_use_is_refused() {
        let sp = [1, 0x7f, 1, 0x41, 0x80, 0x80, 0xc0, 0x00, 0x0b];
        // Data at 1023.
        let low = [1, 0, 0x41, 0xff, 0x07, 0x0b, 1, 7];
        let m = module(&[(6, &sp), (11, &low)]);
        let e = check_low_memory_unused(&m).unwrap_err();
        assert!(e.contains("1 bytes lies at address 1023"), "{e}");
        // Data at 1024 is fine; a stack that starts below 1 MiB is not (a shallower call chain
        // reaches the low kilobyte).
        let at_1024 = [1, 0, 0x41, 0x80, 0x08, 0x0b, 1, 7];
        assert_eq!(
            check_low_memory_unused(&module(&[(6, &sp), (11, &at_1024)])),
            Ok(())
        );
        let small = [1, 0x7f, 1, 0x41, 0x80, 0x20, 0x0b];
        let e = check_low_memory_unused(&module(&[(6, &small)])).unwrap_err();
        assert!(e.contains("starts at Some(4096), below 1048576"), "{e}");
        let just_below = [1, 0x7f, 1, 0x41, 0xf0, 0xff, 0x3f, 0x0b];
        let e = check_low_memory_unused(&module(&[(6, &just_below)])).unwrap_err();
        assert!(e.contains("starts at Some(1048560)"), "{e}");
        // An address is unsigned: -16 as an i32 constant is 16 bytes below 4 GiB.
        let top = [1, 0x7f, 1, 0x41, 0x70, 0x0b];
        assert_eq!(
            memory_layout(&module(&[(6, &top)])).unwrap().stack_pointer,
            Some(0xffff_fff0)
        );
        // No stack pointer to read, a computed address, a truncated module: refused.
        assert!(check_low_memory_unused(&module(&[])).is_err());
        let computed = [1, 0, 0x23, 0, 0x0b, 0];
        assert!(memory_layout(&module(&[(11, &computed)])).is_err());
        assert!(memory_layout(&m[..m.len() - 1]).is_err());
        assert!(memory_layout(b"\0asm\x02\0\0\0").is_err());
    }

    /// A module as a compiler would write it (from the text format), laid out as Rust's linker
    /// lays out its own: the stack pointer first, data above it.
    #[test]
    fn a_module_from_the_text_format_is_read() {
        let wasm = wat::parse_str(
            r#"(module
                 (memory 17)
                 (global $sp (mut i32) (i32.const 1048576))
                 (global $heap i32 (i32.const 1049000))
                 (data (i32.const 1048576) "fence")
                 (data (i32.const 1048600) "post\00")
                 (data "passive, not placed"))"#,
        )
        .unwrap();
        assert_laid_out_at_1_mib(&wasm, &[(1_048_576, 5), (1_048_600, 5)]);

        // The same with a string in the low kilobyte, and with the stack pointer immutable (then
        // it is not read as one) or set by an expression that is not one constant.
        let low = wat::parse_str(
            r#"(module (memory 1) (global (mut i32) (i32.const 1048576))
                 (data (i32.const 8) "low"))"#,
        )
        .unwrap();
        let e = check_low_memory_unused(&low).unwrap_err();
        assert!(
            e.starts_with("a data segment of 3 bytes lies at address 8,"),
            "{e}"
        );
        for global in [
            "(global i32 (i32.const 1048576))",
            "(global (mut i32) (i32.add (i32.const 1048576) (i32.const 0)))",
            "(global (mut i64) (i64.const 1048576))",
        ] {
            let wasm = wat::parse_str(format!("(module {global})")).unwrap();
            assert_eq!(
                memory_layout(&wasm).unwrap().stack_pointer,
                None,
                "{global}"
            );
        }
        let computed = wat::parse_str(
            r#"(module (import "env" "base" (global i32)) (memory 1)
                 (data (global.get 0) "x"))"#,
        )
        .unwrap();
        assert_eq!(
            memory_layout(&computed).unwrap_err(),
            "a data segment's address is not a constant"
        );
        // A component is not a module.
        let component = wat::parse_str("(component)").unwrap();
        assert!(memory_layout(&component).is_err());
    }
}

//! What can go wrong between a module's source file and its first hook.

use std::fmt;

/// Why a module could not be built, loaded or configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KmodError {
    /// No C compiler (`$CC`, else `cc`) could be run.
    NoCompiler { compiler: String, why: String },
    /// The source file cannot be read.
    Source { path: String, why: String },
    /// The compiler refused the module: its first error, where it is, and
    /// the compiler's whole message.
    Compile {
        file: String,
        line: u32,
        error: String,
        output: String,
    },
    /// The module calls a function (or names a symbol) the shim does not
    /// provide.
    MissingSymbol {
        symbol: String,
        file: String,
        line: u32,
    },
    /// The shared object could not be loaded (`dlopen`/`dlsym`).
    Load { path: String, why: String },
    /// The module's `module_init` failed or registered no control.
    Init { module: String, why: String },
    /// `params` names a parameter the module does not declare.
    UnknownParam {
        module: String,
        name: String,
        known: Vec<String>,
    },
    /// The module's parameter refused the value.
    BadParam {
        module: String,
        name: String,
        value: String,
    },
    /// Something in the shim's cache directory failed.
    Cache { path: String, why: String },
}

impl fmt::Display for KmodError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KmodError::NoCompiler { compiler, why } => write!(
                f,
                "no C compiler: could not run {compiler:?} ({why}); install gcc or clang, \
                 or name one in $CC"
            ),
            KmodError::Source { path, why } => write!(f, "cannot read module {path}: {why}"),
            KmodError::Compile {
                file, line, error, ..
            } => write!(f, "the module does not compile: {file}:{line}: {error}"),
            KmodError::MissingSymbol { symbol, file, line } => {
                let at = if *line > 0 {
                    format!(" ({file}:{line})")
                } else {
                    String::new()
                };
                write!(
                    f,
                    "the module uses `{symbol}`{at}, which dumbbell's kernel shim does not provide"
                )
            }
            KmodError::Load { path, why } => write!(f, "cannot load {path}: {why}"),
            KmodError::Init { module, why } => write!(f, "module {module}: {why}"),
            KmodError::UnknownParam {
                module,
                name,
                known,
            } => write!(
                f,
                "module {module} has no parameter {name:?} (its parameters: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
            KmodError::BadParam {
                module,
                name,
                value,
            } => write!(
                f,
                "module {module}'s parameter {name} refuses the value {value:?}"
            ),
            KmodError::Cache { path, why } => write!(f, "module cache {path}: {why}"),
        }
    }
}

impl std::error::Error for KmodError {}

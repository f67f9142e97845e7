//! Compiler options shared by every stage that runs clang: the input
//! language standard, the migration target, `-I` and `-D`.

use std::path::PathBuf;

/// An OpenCL C language standard, as `-cl-std=` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum ClStd {
    #[serde(rename = "CL1.0")]
    Cl10,
    #[serde(rename = "CL1.1")]
    Cl11,
    #[serde(rename = "CL1.2")]
    Cl12,
    #[serde(rename = "CL2.0")]
    Cl20,
    #[serde(rename = "CL3.0")]
    Cl30,
}

impl ClStd {
    pub fn parse(text: &str) -> Result<ClStd, String> {
        match text.to_ascii_uppercase().trim_start_matches("CL") {
            "1.0" => Ok(ClStd::Cl10),
            "1.1" => Ok(ClStd::Cl11),
            "1.2" => Ok(ClStd::Cl12),
            "2.0" => Ok(ClStd::Cl20),
            "3.0" => Ok(ClStd::Cl30),
            _ => Err(format!("unknown OpenCL C standard `{text}` (expected CL1.0, CL1.1, CL1.2, CL2.0 or CL3.0)")),
        }
    }
    /// `CL1.2`, as users write it.
    pub fn name(self) -> &'static str {
        match self {
            ClStd::Cl10 => "CL1.0",
            ClStd::Cl11 => "CL1.1",
            ClStd::Cl12 => "CL1.2",
            ClStd::Cl20 => "CL2.0",
            ClStd::Cl30 => "CL3.0",
        }
    }
    pub fn flag(self) -> String {
        format!("-cl-std={}", self.name())
    }
}

/// What the migrated code must compile as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Target {
    /// OpenCL C 2.0: generic address space and program-scope globals.
    #[serde(rename = "cl2.0")]
    Cl20,
    /// OpenCL C 3.0 with `__opencl_c_generic_address_space` and
    /// `__opencl_c_program_scope_global_variables`.
    #[serde(rename = "cl3.0")]
    Cl30,
    /// OpenCL C 3.0 without those features: 1.2 rules, nothing can be generic.
    #[serde(rename = "cl3.0-nogeneric")]
    Cl30NoGeneric,
}

impl Target {
    pub fn parse(text: &str) -> Result<Target, String> {
        match text {
            "cl2.0" | "CL2.0" => Ok(Target::Cl20),
            "cl3.0" | "CL3.0" => Ok(Target::Cl30),
            "cl3.0-nogeneric" | "CL3.0-nogeneric" => Ok(Target::Cl30NoGeneric),
            _ => Err(format!("unknown target `{text}` (expected cl2.0, cl3.0 or cl3.0-nogeneric)")),
        }
    }
    pub fn has_generic(self) -> bool {
        !matches!(self, Target::Cl30NoGeneric)
    }
    /// The clang flags that select this target's language rules.
    pub fn std_flags(self) -> Vec<String> {
        match self {
            Target::Cl20 => vec![ClStd::Cl20.flag().into()],
            Target::Cl30 => vec![
                ClStd::Cl30.flag().into(),
                "-Xclang".into(),
                "-cl-ext=-all,+__opencl_c_generic_address_space,+__opencl_c_program_scope_global_variables".into(),
            ],
            Target::Cl30NoGeneric => vec![ClStd::Cl30.flag().into(), "-Xclang".into(), "-cl-ext=-all".into()],
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Target::Cl20 => "cl2.0",
            Target::Cl30 => "cl3.0",
            Target::Cl30NoGeneric => "cl3.0-nogeneric",
        }
    }
}

/// Options for compiling one translation unit, as given on the command line.
#[derive(Debug, Clone)]
pub struct CompileOptions {
    pub std: ClStd,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    /// Include the full `opencl-c.h` instead of the driver's lazily declared builtins.
    pub full_header: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions { std: ClStd::Cl12, include_dirs: Vec::new(), defines: Vec::new(), full_header: false }
    }
}

impl CompileOptions {
    /// The clang arguments for this unit as the input standard (or `std_flags` when given).
    pub fn clang_args(&self, std_flags: Option<&[String]>) -> Vec<String> {
        self.clang_args_for(std_flags, "spir64")
    }

    /// As `clang_args`, for another target triple.
    pub fn clang_args_for(&self, std_flags: Option<&[String]>, triple: &str) -> Vec<String> {
        let mut args = vec!["-x".to_string(), "cl".to_string()];
        match std_flags {
            Some(flags) => args.extend(flags.iter().cloned()),
            None => args.push(self.std.flag().to_string()),
        }
        args.extend(["-target".to_string(), triple.to_string()]);
        if self.full_header {
            args.extend(["-Xclang".to_string(), "-finclude-default-header".to_string()]);
        }
        for dir in &self.include_dirs {
            args.push(format!("-I{}", dir.display()));
        }
        for define in &self.defines {
            args.push(format!("-D{define}"));
        }
        args
    }
}

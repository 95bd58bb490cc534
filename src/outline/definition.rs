//! What an outline holds: a definition's [`Kind`], one [`Definition`] (its lines, depth and
//! qualified name), and a file's [`Outline`].

use super::language::Language;

/// What a definition is, one word as the outline prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Class,
    Function,
    Method,
    Constructor,
    Property,
    Struct,
    Union,
    Enum,
    Trait,
    Impl,
    Interface,
    Type,
    Module,
    Namespace,
    Constant,
    Macro,
}

impl Kind {
    /// The word.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Class => "class",
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Constructor => "constructor",
            Kind::Property => "property",
            Kind::Struct => "struct",
            Kind::Union => "union",
            Kind::Enum => "enum",
            Kind::Trait => "trait",
            Kind::Impl => "impl",
            Kind::Interface => "interface",
            Kind::Type => "type",
            Kind::Module => "module",
            Kind::Namespace => "namespace",
            Kind::Constant => "constant",
            Kind::Macro => "macro",
        }
    }
}

/// One definition: 1-indexed inclusive lines, nesting depth (0 = top level), and its name
/// qualified by the definitions around it, `.`-separated (`Invoice.Status.parse`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub start_line: u64,
    pub end_line: u64,
    pub depth: usize,
    pub kind: Kind,
    pub name: String,
    /// Whether the name was shortened (it ends in `…[+N bytes]`, `super::name::marker`).
    pub shortened: bool,
}

impl Definition {
    /// The last part of the qualified name (`parse` of `Invoice.Status.parse`).
    pub fn last_part(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    /// The outline's line for it, without indentation: `START-END KIND QUALIFIED_NAME`.
    pub fn line(&self) -> String {
        let mut line = String::new();
        self.write_line(&mut line);
        line
    }

    /// Appends [`Definition::line`] to `out` (a page writes thousands: no formatting machinery,
    /// no allocation of its own).
    pub(crate) fn write_line(&self, out: &mut String) {
        push_number(out, self.start_line);
        out.push('-');
        push_number(out, self.end_line);
        out.push(' ');
        out.push_str(self.kind.as_str());
        out.push(' ');
        out.push_str(&self.name);
    }
}

/// Appends `n` in decimal.
fn push_number(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // ASCII digits only: always UTF-8.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// A file's definitions in file order, and whether its syntax tree had errors (tree-sitter
/// recovers, so the outline is then partial but still correct where the tree is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    pub language: Language,
    pub definitions: Vec<Definition>,
    pub partial: bool,
    /// Definitions left out for being nested `super::walk::MAX_DEPTH` deep (what is inside
    /// them is not counted).
    pub too_deep: usize,
}

impl Outline {
    /// Bytes it holds, as the cache weighs it.
    pub(crate) fn weight(&self) -> u64 {
        let names: usize = self.definitions.iter().map(|d| d.name.len()).sum();
        let each = std::mem::size_of::<Definition>();
        (names + each * self.definitions.len() + std::mem::size_of::<Outline>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_start_end_kind_name_with_every_digit() {
        let d = |start_line, end_line| Definition {
            start_line,
            end_line,
            depth: 3,
            kind: Kind::Method,
            name: "Invoice.Status.parse".into(),
            shortened: false,
        };
        assert_eq!(d(35, 35).line(), "35-35 method Invoice.Status.parse");
        assert_eq!(d(9, 10).line(), "9-10 method Invoice.Status.parse");
        assert_eq!(
            d(100, 1_000_009).line(),
            "100-1000009 method Invoice.Status.parse"
        );
        assert_eq!(
            d(0, u64::MAX).line(),
            "0-18446744073709551615 method Invoice.Status.parse"
        );
    }
}

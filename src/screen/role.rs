//! [`Role`]: the ARIA roles the collector names, for code that decides by a control's role.
//!
//! A control's record keeps its role as the [`Text`](super::Text) the collector wrote: a
//! dense read parses each role once from a per-document string table and shares it among
//! the controls naming it, and converting every record's role on that hot path would cost
//! what the sharing saves. Code that *branches* on a role converts the one it looks at.

/// Declares [`Role`] with the spelling of each role, in one list.
macro_rules! roles {
    ($($role:ident => $name:literal,)*) => {
        /// An ARIA 1.2 concrete role, as the collector names it (explicit or implicit), or
        /// one it does not know.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Role {
            $(
                #[doc = concat!("`", $name, "`.")]
                $role,
            )*
            /// A role outside ARIA 1.2's concrete roles.
            Other,
        }

        impl Role {
            /// The role the collector spelled `name`.
            pub fn of(name: &str) -> Role {
                match name {
                    $($name => Role::$role,)*
                    _ => Role::Other,
                }
            }
        }
    };
}

roles! {
    Alert => "alert",
    Alertdialog => "alertdialog",
    Application => "application",
    Article => "article",
    Banner => "banner",
    Blockquote => "blockquote",
    Button => "button",
    Caption => "caption",
    Cell => "cell",
    Checkbox => "checkbox",
    Code => "code",
    Columnheader => "columnheader",
    Combobox => "combobox",
    Comment => "comment",
    Complementary => "complementary",
    Contentinfo => "contentinfo",
    Definition => "definition",
    Deletion => "deletion",
    Dialog => "dialog",
    Directory => "directory",
    Document => "document",
    Emphasis => "emphasis",
    Feed => "feed",
    Figure => "figure",
    Form => "form",
    Generic => "generic",
    Grid => "grid",
    Gridcell => "gridcell",
    Group => "group",
    Heading => "heading",
    Img => "img",
    Image => "image",
    Insertion => "insertion",
    Link => "link",
    List => "list",
    Listbox => "listbox",
    Listitem => "listitem",
    Log => "log",
    Main => "main",
    Mark => "mark",
    Marquee => "marquee",
    Math => "math",
    Menu => "menu",
    Menubar => "menubar",
    Menuitem => "menuitem",
    Menuitemcheckbox => "menuitemcheckbox",
    Menuitemradio => "menuitemradio",
    Meter => "meter",
    Navigation => "navigation",
    None => "none",
    Note => "note",
    Option => "option",
    Paragraph => "paragraph",
    Presentation => "presentation",
    Progressbar => "progressbar",
    Radio => "radio",
    Radiogroup => "radiogroup",
    Region => "region",
    Row => "row",
    Rowgroup => "rowgroup",
    Rowheader => "rowheader",
    Scrollbar => "scrollbar",
    Search => "search",
    Searchbox => "searchbox",
    Separator => "separator",
    Slider => "slider",
    Spinbutton => "spinbutton",
    Status => "status",
    Strong => "strong",
    Subscript => "subscript",
    Suggestion => "suggestion",
    Superscript => "superscript",
    Switch => "switch",
    Tab => "tab",
    Table => "table",
    Tablist => "tablist",
    Tabpanel => "tabpanel",
    Term => "term",
    Textbox => "textbox",
    Time => "time",
    Timer => "timer",
    Toolbar => "toolbar",
    Tooltip => "tooltip",
    Tree => "tree",
    Treegrid => "treegrid",
    Treeitem => "treeitem",
}

impl Role {
    /// A role a person acts on (clicks, types into, picks).
    pub fn is_actionable(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::Link
                | Role::Checkbox
                | Role::Radio
                | Role::Switch
                | Role::Textbox
                | Role::Searchbox
                | Role::Combobox
                | Role::Listbox
                | Role::Spinbutton
                | Role::Slider
                | Role::Tab
                | Role::Menuitem
                | Role::Menuitemcheckbox
                | Role::Menuitemradio
                | Role::Option
                | Role::Treeitem
        )
    }

    /// A role that only groups or lays out (`generic`, `none`, `presentation`).
    pub fn is_plain(self) -> bool {
        matches!(self, Role::Generic | Role::None | Role::Presentation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_read_by_their_aria_names() {
        assert_eq!(Role::of("button"), Role::Button);
        assert_eq!(Role::of("menuitemcheckbox"), Role::Menuitemcheckbox);
        assert_eq!(
            Role::of("Button"),
            Role::Other,
            "the collector writes lowercase"
        );
        assert_eq!(
            Role::of("widget"),
            Role::Other,
            "an abstract role is no role"
        );
        assert!(Role::of("textbox").is_actionable());
        assert!(!Role::of("status").is_actionable());
        assert!(Role::of("presentation").is_plain());
    }
}

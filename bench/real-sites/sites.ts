/**
 * The real sites: Debian packages that install a static HTML tree, each made by a different documentation
 * generator, so the crawlers meet the markup quirks of several toolchains rather than one. Adding a site is
 * a row here. `root` is the directory nginx serves (a symlink is fine: nginx follows it); the crawl starts
 * at `/`, i.e. the tree's index.html.
 */

export interface RealSite {
  /** Short name used in tables and file names. */
  name: string;
  /** The generator that wrote the HTML (for the reader: why this site is in the list). */
  generator: string;
  /** The Debian package that installs the tree. */
  pkg: string;
  /** The HTML directory served as the site's root. */
  root: string;
  /** Tens of thousands of pages: left out of the default list (pick it with --sites or --all-sites). */
  large?: boolean;
}

export const SITES: readonly RealSite[] = [
  { name: "python3-doc", generator: "Sphinx", pkg: "python3-doc", root: "/usr/share/doc/python3-doc/html" },
  { name: "postgresql-doc-15", generator: "DocBook XSL", pkg: "postgresql-doc-15", root: "/usr/share/doc/postgresql-doc-15/html" },
  // Doxygen 1.9 trees whose main page is empty (libxerces-c-doc, libmbedtls-doc) are navigated by a menu
  // built in JavaScript, so no crawler gets past their first page; CppUnit's main page links its sections.
  { name: "libcppunit-doc", generator: "Doxygen", pkg: "libcppunit-doc", root: "/usr/share/doc/libcppunit-doc/html" },
  // The Rust 1.63 standard library, books and references (17 MB download, 580 MB installed): 32,101 HTML
  // files, ~10,000 of them rustdoc's meta-refresh redirect pages; issue 27's real site of 10k+ pages.
  { name: "rust-doc", generator: "rustdoc, mdBook", pkg: "rust-doc", root: "/usr/share/doc/rust-doc/html", large: true },
];

/** The tools the comparison runs, as Debian packages (`time` gives /usr/bin/time for CPU and peak RSS). */
export const TOOL_PACKAGES: readonly string[] = ["nginx", "wget2", "linkchecker", "time"];

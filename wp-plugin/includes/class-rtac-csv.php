<?php
/**
 * CSV for spreadsheets, safe against formula injection.
 *
 * Questions come from anonymous visitors; a cell like `=HYPERLINK(...)` would
 * run as a formula in the owner's spreadsheet, so such cells are prefixed
 * with an apostrophe (OWASP's recommendation).
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Csv {

	public static function cell( $value ): string {
		$value = (string) $value;
		if ( '' !== $value && in_array( $value[0], array( '=', '+', '-', '@', "\t", "\r", "\n" ), true ) ) {
			return "'" . $value;
		}
		return $value;
	}

	/** @param array<int, array> $rows The first row is the header. */
	public static function build( array $rows ): string {
		$fh = fopen( 'php://temp', 'r+' );
		// A BOM so Excel reads UTF-8 (Estonian, Russian, Korean questions) correctly.
		fwrite( $fh, "\xEF\xBB\xBF" ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_system_operations_fwrite
		foreach ( $rows as $row ) {
			fputcsv( $fh, array_map( array( __CLASS__, 'cell' ), array_values( $row ) ), ',', '"', '' );
		}
		rewind( $fh );
		$csv = (string) stream_get_contents( $fh );
		fclose( $fh ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_system_operations_fclose
		return $csv;
	}
}

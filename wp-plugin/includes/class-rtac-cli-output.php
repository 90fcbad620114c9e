<?php
/**
 * Where Rtac_CLI writes: WP-CLI when it runs, else a list of lines, so the
 * commands can be called from tests without WP-CLI (and without exiting).
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

class Rtac_CLI_Output {

	private bool $wp_cli;

	/** @var array<int, array{0:string, 1:string}> [type, message] */
	public array $lines = array();

	public function __construct( ?bool $use_wp_cli = null ) {
		$this->wp_cli = $use_wp_cli ?? ( defined( 'WP_CLI' ) && WP_CLI && class_exists( 'WP_CLI' ) );
	}

	public function log( string $message ): void {
		$this->write( 'log', $message );
	}

	public function success( string $message ): void {
		$this->write( 'success', $message );
	}

	public function warning( string $message ): void {
		$this->write( 'warning', $message );
	}

	/** Under WP-CLI this ends the command with a non-zero exit code. */
	public function error( string $message ): void {
		$this->write( 'error', $message );
	}

	private function write( string $type, string $message ): void {
		$this->lines[] = array( $type, $message );
		if ( $this->wp_cli ) {
			call_user_func( array( 'WP_CLI', $type ), $message );
		}
	}
}

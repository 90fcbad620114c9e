<?php
/**
 * The unanswered questions as the sidecar keeps them (GET /v1/unanswered,
 * POST /v1/unanswered/<id>/resolve|dismiss): the data behind the report page
 * and the dashboard widget, which both read it through this class.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Unanswered_Report {

	private Rtac_Settings $settings;
	private ?Rtac_Client $client;

	public function __construct( Rtac_Settings $settings, ?Rtac_Client $client = null ) {
		$this->settings = $settings;
		$this->client   = $client;
	}

	/**
	 * Open questions from the sidecar, of one language when given.
	 *
	 * @return array|WP_Error The items.
	 */
	public function fetch( string $lang = '' ) {
		$lang = Rtac_Language::normalize( $lang );
		$res  = $this->client()->request( 'GET', '/v1/unanswered?status=open' . ( '' !== $lang ? '&lang=' . rawurlencode( $lang ) : '' ) );
		if ( null !== $res['error'] ) {
			return $res['error'];
		}
		return is_array( $res['body']['items'] ?? null ) ? $res['body']['items'] : array();
	}

	/** Marks a question 'resolved' or 'dismissed'; false when the sidecar did not take it. */
	public function set_status( int $id, string $status ): bool {
		$verb = 'resolved' === $status ? 'resolve' : 'dismiss';
		$res  = $this->client()->request( 'POST', '/v1/unanswered/' . $id . '/' . $verb, array() );
		if ( null !== $res['error'] ) {
			return false;
		}
		delete_transient( Rtac_Registry::dashboard_transient() ); // The dashboard's open count just changed.
		return true;
	}

	/** The id of the open question recorded for this wording (the sidecar groups them so), else 0. */
	public static function matching_question( array $items, string $question, string $lang ): int {
		$wanted = self::normalize_question( $question );
		foreach ( $items as $item ) {
			if ( self::normalize_question( (string) ( $item['question'] ?? '' ) ) === $wanted
				&& ( '' === $lang || Rtac_Language::normalize( (string) ( $item['lang'] ?? '' ) ) === $lang ) ) {
				return (int) ( $item['id'] ?? 0 );
			}
		}
		return 0;
	}

	/** As the sidecar groups questions: case, runs of whitespace and the end punctuation do not count. */
	public static function normalize_question( string $question ): string {
		$question = mb_strtolower( trim( (string) preg_replace( '/\s+/u', ' ', $question ) ) );
		return (string) preg_replace( '/[\s?!.。？！…]+$/u', '', $question );
	}

	/** The CSV export: a header row, then one row a question. */
	public static function csv_rows( array $items ): array {
		$columns = array( 'id', 'question', 'lang', 'page_url', 'count', 'first_asked', 'last_asked', 'status' );
		$rows    = array( $columns );
		foreach ( $items as $item ) {
			$row = array();
			foreach ( $columns as $column ) {
				$row[] = $item[ $column ] ?? '';
			}
			$rows[] = $row;
		}
		return $rows;
	}

	private function client(): Rtac_Client {
		return $this->client ?? Rtac_Client::from_settings( $this->settings );
	}
}

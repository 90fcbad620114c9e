<?php
/**
 * The unanswered-questions report (menu slug `rtac-unanswered`): the list,
 * "Add to knowledge base", "Dismiss", bulk dismiss and the CSV export.
 *
 * Every action runs capability → nonce → wp_unslash → act → wp_safe_redirect
 * with a message code.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Admin_Unanswered {

	const PAGE           = 'rtac-unanswered';
	const DISMISS_ACTION = 'rtac_unanswered_dismiss';
	const ANSWER_ACTION  = 'rtac_unanswered_answer';
	const CSV_ACTION     = 'rtac_unanswered_csv';

	private Rtac_Settings $settings;
	private ?Rtac_Client $client;

	public function __construct( Rtac_Settings $settings, ?Rtac_Client $client = null ) {
		$this->settings = $settings;
		$this->client   = $client;
	}

	/**
	 * Open questions from the sidecar.
	 *
	 * @return array|WP_Error The items.
	 */
	public function fetch() {
		$res = $this->client()->request( 'GET', '/v1/unanswered?status=open' );
		if ( null !== $res['error'] ) {
			return $res['error'];
		}
		return is_array( $res['body']['items'] ?? null ) ? $res['body']['items'] : array();
	}

	public function set_status( int $id, string $status ): bool {
		$verb = 'resolved' === $status ? 'resolve' : 'dismiss';
		$res  = $this->client()->request( 'POST', '/v1/unanswered/' . $id . '/' . $verb, array() );
		if ( null !== $res['error'] ) {
			return false;
		}
		delete_transient( Rtac_Dashboard::cache_key() ); // The open count just changed.
		return true;
	}

	public function render(): void {
		Rtac_Admin::require_cap();
		echo '<div class="wrap"><h1 class="wp-heading-inline">' . esc_html__( 'Unanswered questions', 'rtac' ) . '</h1>';
		Rtac_Admin::render_notice();
		echo '<p>' . esc_html__( 'Questions visitors asked that your site could not answer. Each one is a piece of content worth writing: add an answer and the assistant will use it from then on.', 'rtac' ) . '</p>';

		$items = $this->fetch();
		if ( is_wp_error( $items ) ) {
			self::render_unreachable( $items );
			echo '</div>';
			return;
		}

		$answer_id = isset( $_GET['answer'] ) ? absint( $_GET['answer'] ) : 0; // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- opens a form only
		foreach ( $items as $item ) {
			if ( $answer_id && (int) ( $item['id'] ?? 0 ) === $answer_id ) {
				$this->render_answer_form( $item );
			}
		}

		$table = new Rtac_Unanswered_Table();
		$table->set_rows( $items );
		$table->prepare_items();
		echo '<form method="post" action="' . esc_url( Rtac_Admin::page_url( self::PAGE ) ) . '">';
		$table->display();
		echo '</form>';

		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '" class="rtac-export">';
		echo '<input type="hidden" name="action" value="' . esc_attr( self::CSV_ACTION ) . '" />';
		// Own names: the table's bulk form already has a #_wpnonce.
		wp_nonce_field( self::CSV_ACTION, 'rtac_csv_nonce' );
		submit_button( __( 'Export as CSV', 'rtac' ), 'secondary', 'rtac-export', false );
		echo '</form></div>';
	}

	public static function render_unreachable( WP_Error $error ): void {
		echo '<div class="notice notice-warning inline"><p>';
		esc_html_e( 'The assistant service could not be reached just now, so this information is not available. Please try again in a few minutes.', 'rtac' );
		echo '</p><p><small>' . esc_html( $error->get_error_message() ) . '</small> ';
		printf( '<a href="%1$s">%2$s</a>', esc_url( Rtac_Admin::page_url( 'rtac', array( 'tab' => 'connection' ) ) ), esc_html__( 'Check the connection settings', 'rtac' ) );
		echo '</p></div>';
	}

	private function render_answer_form( array $item ): void {
		$id    = (int) $item['id'];
		$lang  = Rtac_Language::normalize( (string) ( $item['lang'] ?? '' ) );
		$langs = Rtac_Language::available();
		if ( '' !== $lang && ! in_array( $lang, $langs, true ) ) {
			$langs[] = $lang;
		}
		echo '<div class="card rtac-answer" id="rtac-answer"><h2>' . esc_html__( 'Add to the knowledge base', 'rtac' ) . '</h2>';
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
		echo '<input type="hidden" name="action" value="' . esc_attr( self::ANSWER_ACTION ) . '" />';
		echo '<input type="hidden" name="id" value="' . esc_attr( (string) $id ) . '" />';
		wp_nonce_field( self::ANSWER_ACTION, 'rtac_answer_nonce' );
		echo '<p><label for="rtac-answer-question">' . esc_html__( 'Question', 'rtac' ) . '</label><br />';
		echo '<input type="text" id="rtac-answer-question" name="question" class="large-text" value="' . esc_attr( (string) ( $item['question'] ?? '' ) ) . '" /></p>';
		echo '<p><label for="rtac-answer-text">' . esc_html__( 'Answer', 'rtac' ) . '</label><br />';
		echo '<textarea id="rtac-answer-text" name="answer" rows="6" class="large-text" required></textarea></p>';
		echo '<p><label for="rtac-answer-lang">' . esc_html__( 'Language', 'rtac' ) . '</label> <select id="rtac-answer-lang" name="lang">';
		foreach ( $langs as $code ) {
			echo '<option value="' . esc_attr( $code ) . '"' . selected( $lang, $code, false ) . '>' . esc_html( $code ) . '</option>';
		}
		echo '</select> <label><input type="checkbox" name="pinned" value="1" /> ' . esc_html__( 'Pinned: send with every answer in this language', 'rtac' ) . '</label></p>';
		submit_button( __( 'Add answer and resolve', 'rtac' ), 'primary', 'rtac-answer-submit', false );
		echo ' <a class="button-link" href="' . esc_url( Rtac_Admin::page_url( self::PAGE ) ) . '">' . esc_html__( 'Cancel', 'rtac' ) . '</a>';
		echo '</form></div>';
	}

	/** load-{page}: the bulk "Dismiss", before any output so it can redirect. */
	public function on_load(): void {
		// phpcs:disable WordPress.Security.NonceVerification.Missing -- only picks the branch; verified below
		$action = isset( $_POST['action'] ) ? sanitize_key( wp_unslash( $_POST['action'] ) ) : '-1';
		if ( '-1' === $action || '' === $action ) {
			$action = isset( $_POST['action2'] ) ? sanitize_key( wp_unslash( $_POST['action2'] ) ) : '';
		}
		// phpcs:enable
		if ( 'dismiss' !== $action ) {
			return;
		}
		Rtac_Admin::require_cap();
		check_admin_referer( 'bulk-rtac-questions' );
		$ids = isset( $_POST['ids'] ) ? array_filter( array_map( 'absint', (array) wp_unslash( $_POST['ids'] ) ) ) : array();
		if ( ! $ids ) {
			self::redirect( array( 'rtac_msg' => 'nothing_selected' ) );
		}
		$done = 0;
		foreach ( $ids as $id ) {
			$done += $this->set_status( $id, 'dismissed' ) ? 1 : 0;
		}
		self::redirect(
			$done > 0 ? array(
				'rtac_msg' => 'dismissed',
				'rtac_n'   => $done,
			) : array( 'rtac_msg' => 'dismiss_failed' )
		);
	}

	/** admin-post.php?action=rtac_unanswered_dismiss&id=N&_wpnonce=... */
	public function handle_dismiss(): void {
		Rtac_Admin::require_cap();
		$id = isset( $_GET['id'] ) ? absint( $_GET['id'] ) : 0; // The nonce action names the id.
		check_admin_referer( self::DISMISS_ACTION . '_' . $id );
		if ( $id && $this->set_status( $id, 'dismissed' ) ) {
			self::redirect(
				array(
					'rtac_msg' => 'dismissed',
					'rtac_n'   => 1,
				)
			);
		}
		self::redirect( array( 'rtac_msg' => 'dismiss_failed' ) );
	}

	/** admin-post.php, action rtac_unanswered_answer: creates the KB entry, then resolves. */
	public function handle_answer(): void {
		Rtac_Admin::require_cap();
		check_admin_referer( self::ANSWER_ACTION, 'rtac_answer_nonce' );
		$id       = isset( $_POST['id'] ) ? absint( wp_unslash( $_POST['id'] ) ) : 0;
		$question = isset( $_POST['question'] ) ? sanitize_text_field( wp_unslash( $_POST['question'] ) ) : '';
		$answer   = isset( $_POST['answer'] ) ? wp_kses_post( wp_unslash( $_POST['answer'] ) ) : '';
		$lang     = isset( $_POST['lang'] ) ? Rtac_Language::normalize( sanitize_text_field( wp_unslash( $_POST['lang'] ) ) ) : '';
		$pinned   = ! empty( $_POST['pinned'] );

		if ( '' === trim( $answer ) || '' === $question ) {
			self::redirect(
				array(
					'rtac_msg' => 'answer_empty',
					'answer'   => $id,
				)
			);
		}
		$post_id = Rtac_Knowledge_Base::create_entry( $question, $answer, $lang, $pinned );
		if ( is_wp_error( $post_id ) || ! $post_id ) {
			self::redirect( array( 'rtac_msg' => 'kb_failed' ) );
		}
		$resolved = $id > 0 && $this->set_status( $id, 'resolved' );
		self::redirect( array( 'rtac_msg' => $resolved ? 'kb_added' : 'kb_added_open' ) );
	}

	/** admin-post.php, action rtac_unanswered_csv. */
	public function handle_csv(): void {
		Rtac_Admin::require_cap();
		check_admin_referer( self::CSV_ACTION, 'rtac_csv_nonce' );
		$items = $this->fetch();
		if ( is_wp_error( $items ) ) {
			wp_die( esc_html__( 'The assistant service could not be reached, so there is nothing to export right now. Please try again later.', 'rtac' ), esc_html__( 'Export failed', 'rtac' ), array( 'response' => 502, 'back_link' => true ) );
		}
		$csv = Rtac_Csv::build( self::csv_rows( $items ) );
		nocache_headers();
		header( 'Content-Type: text/csv; charset=utf-8' );
		header( 'Content-Disposition: attachment; filename="rtac-unanswered-' . gmdate( 'Y-m-d' ) . '.csv"' );
		header( 'X-Content-Type-Options: nosniff' );
		header( 'Content-Length: ' . strlen( $csv ) );
		echo $csv; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- a CSV download, cells neutralised by Rtac_Csv
		exit;
	}

	public static function csv_rows( array $items ): array {
		$rows = array( array( 'id', 'question', 'lang', 'page_url', 'count', 'first_asked', 'last_asked', 'status' ) );
		foreach ( $items as $item ) {
			$rows[] = array(
				$item['id'] ?? '',
				$item['question'] ?? '',
				$item['lang'] ?? '',
				$item['page_url'] ?? '',
				$item['count'] ?? '',
				$item['first_asked'] ?? '',
				$item['last_asked'] ?? '',
				$item['status'] ?? '',
			);
		}
		return $rows;
	}

	/** @return never */
	private static function redirect( array $args ): void {
		wp_safe_redirect( Rtac_Admin::page_url( self::PAGE, $args ) );
		exit;
	}

	private function client(): Rtac_Client {
		return $this->client ?? Rtac_Client::from_settings( $this->settings );
	}
}
